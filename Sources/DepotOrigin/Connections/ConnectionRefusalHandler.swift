import DepotAPI
import DepotHTTP
import NIOCore
import NIOHTTP1

/// Answers a connection the gate refused with one complete HTTP/1.1 response, then closes it as
/// ``LingeringClose`` does, dropping whatever the client sends meanwhile.
///
/// It sits first in the pipeline, so nothing the client sends reaches a decoder or a route; with `server.tls` it
/// sits just behind the TLS handler (see ``TLSChannel``), so the answer goes out once the handshake is done and the
/// client can read it: a plaintext answer on a TLS port would reach the client as a malformed record, and it would
/// never learn why it was turned away. The handshake this costs is bounded as an admitted one's is: the bundle
/// handler behind it closes a connection idle for `server.idleTimeoutSeconds`.
package final class ConnectionRefusalHandler: ChannelInboundHandler, RemovableChannelHandler {
    /// Bytes from the client, dropped.
    package typealias InboundIn = ByteBuffer

    private let answer: [UInt8]

    /// A handler answering `admission` (one of the refusals).
    package init(refusing admission: ConnectionGate.Admission, now: Int64) {
        answer = Self.answer(for: admission, now: now)
    }

    private var answered = false
    private let lingering = LingeringClose()

    /// Answers at once when the channel is already active.
    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { answerAndClose(context: context) }
    }

    /// Answers once the channel is active.
    package func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        answerAndClose(context: context)
    }

    private func answerAndClose(context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        let buffer = context.channel.allocator.buffer(bytes: answer)
        context.writeAndFlush(NIOAny(buffer)).assumeIsolated().whenComplete { _ in
            self.lingering.start(context: context)
        }
    }

    /// Drops what the client sends.
    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Dropped: a refused connection is answered once and never served.
        lingering.noteArrival(now: context.eventLoop.now)
    }

    /// Closes the connection.
    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// The bytes of the answer, as `ErrorAnswer` renders it: 503 `too-many-connections` when the server is
    /// full, 429 `too-many-connections-from-address` when the address holds too many connections; both with
    /// `Retry-After` and `Connection: close`.
    static func answer(for admission: ConnectionGate.Admission, now: Int64) -> [UInt8] {
        let error =
            switch admission {
            case .overPerAddress:
                DepotError(
                    .tooManyConnectionsFromAddress,
                    "this address holds as many connections as the server allows one address; close one and retry",
                    retryAfterSeconds: 5)
            case .overTotal, .admitted:
                DepotError(.tooManyConnections, "the server holds as many connections as it allows; retry shortly")
            }
        let answer = ErrorAnswer(error)
        var head = "HTTP/1.1 \(answer.status) \(HTTPResponseStatus(statusCode: answer.status).reasonPhrase)\r\n"
        head += "Date: \(HTTPDate.format(now))\r\n"
        for field in answer.fields { head += "\(field.name): \(field.value)\r\n" }
        head += "Connection: close\r\n\r\n"
        return Array((head + answer.body).utf8)
    }
}

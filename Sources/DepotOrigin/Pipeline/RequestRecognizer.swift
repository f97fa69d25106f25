import DepotAPI
import DepotCore
import NIOCore

/// Sits first in the pipeline, before NIO's HTTP/1 decoder, and reads the head of every request from the bytes
/// (see ``RequestHeadScanner``):
/// - a plain `GET`/`HEAD /v1/bundles/...` request goes straight to the bundle handler, with no `String` per
///   field, no `HTTPHeaders` and no `HTTPRequestHead` built, and never reaches the decoder;
/// - a head over the limits is refused (414, 431) once every earlier answer went out, and nothing after it is read;
/// - every other request is handed on to the decoder, head and body, unchanged and in order, one request at a
///   time, so that the decoder is always at a request's start when a head is read here.
/// After a request whose body it cannot frame (`Transfer-Encoding`, an upgrade, a head not in strict form), it
/// hands every later byte of the connection to the decoder, whose own limits then apply.
///
/// It also tells the bundle handler when the first bytes of a request arrive that do not make a whole recognized
/// request in the same read, so that a request's deadline runs from its first byte (a head trickled in is timed
/// too; one answered at once needs no deadline). While the pipeline is being set up (its request decoder swapped,
/// see ``BundleOrigin``), it holds the bytes that arrive, and reads them once the new decoder is the only one.
///
/// A read whose bytes were all answered here stays here: the read-complete event is not passed through the
/// decoder and Hummingbird's handlers (nothing reached them), and the next read is asked of the socket from here,
/// when the bundle handler allows one, instead of travelling from the pipeline's tail through every handler.
final class RequestRecognizer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// Where in the byte stream the recognizer is.
    private enum Mode {
        /// At the start of a request head.
        case heads
        /// Inside a body with this many bytes still to come, handed on to the decoder.
        case body(remaining: Int)
        /// Every byte goes to the decoder.
        case decoderOnly
        /// A head broke the limits: nothing more is read.
        case refused
    }

    private let bundleHandler: BundleChannelHandler
    private let scanner: RequestHeadScanner
    private var mode = Mode.heads
    /// The start of a head that has not fully arrived.
    private var partial: ByteBuffer?
    /// Bytes held until the pipeline is ready for them; nil once it is.
    private var held: [ByteBuffer]?
    private var context: ChannelHandlerContext?
    /// The `Bearer` token of the last bundle request read here: the next request's token, when the same, is this string
    /// again (no allocation, and the grant cache compares it by identity).
    private var lastToken: String?
    /// Whether bytes were handed on to the decoder since the last read-complete went on.
    private var handedOn = false

    init(bundleHandler: BundleChannelHandler, scanner: RequestHeadScanner) {
        self.bundleHandler = bundleHandler
        self.scanner = scanner
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Holds arriving bytes until `ready` completes.
    func holdBytes(until ready: EventLoopFuture<Void>) {
        if held == nil { held = [] }
        ready.assumeIsolated().whenComplete { _ in self.releaseBytes() }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        bundleHandler.bytesArrived()
        if held != nil {
            bundleHandler.requestBytesArrived()
            held?.append(buffer)
            return
        }
        receive(buffer, context: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        guard held == nil else { return }
        if handedOn {
            handedOn = false
            context.fireChannelReadComplete()
        } else if bundleHandler.readRequestedByRecognizer() {
            // The socket's read is asked for from here: NIO then sees a read pending and skips asking the pipeline.
            context.read()
        }
    }

    private func releaseBytes() {
        guard let bytes = held else { return }
        held = nil
        guard let context, !bytes.isEmpty else { return }
        for buffer in bytes { receive(buffer, context: context) }
        handedOn = false
        context.fireChannelReadComplete()
    }

    /// Reads the requests in `buffer`, after what is left of an earlier read.
    private func receive(_ buffer: ByteBuffer, context: ChannelHandlerContext) {
        var bytes: ByteBuffer
        switch mode {
        case .decoderOnly:
            handOn(buffer, context: context)
            return
        case .refused:
            return
        case .heads, .body:
            if var earlier = partial {
                partial = nil
                var more = buffer
                earlier.writeBuffer(&more)
                bytes = earlier
            } else {
                bytes = buffer
            }
        }
        while bytes.readableBytes > 0 {
            switch mode {
            case .refused:
                return
            case .decoderOnly:
                handOn(bytes, context: context)
                return
            case .body(let remaining):
                let part = bytes.readSlice(length: min(remaining, bytes.readableBytes))!
                mode = remaining == part.readableBytes ? .heads : .body(remaining: remaining - part.readableBytes)
                handedOn = true
                context.fireChannelRead(wrapInboundOut(part))
            case .heads:
                // RFC 9112 §2.2: an empty line before a request line is ignored, as the decoder does.
                if bytes.readableBytesView.first == UInt8(ascii: "\r") {
                    guard bytes.readableBytes >= 2 else {
                        bundleHandler.requestBytesArrived()
                        partial = bytes
                        return
                    }
                    if bytes.readableBytesView.dropFirst().first == UInt8(ascii: "\n") {
                        bytes.moveReaderIndex(forwardBy: 2)
                        continue
                    }
                }
                let outcome = bytes.withUnsafeReadableBytes { scanner.scan($0, previousToken: lastToken) }
                switch outcome {
                case .needMore:
                    // The request's first bytes are here, not all of it: its deadline starts.
                    bundleHandler.requestBytesArrived()
                    partial = bytes
                    return
                case .targetTooLong:
                    refuse(scanner.limits.targetTooLong)
                    return
                case .headTooLarge:
                    refuse(scanner.limits.headTooLarge)
                    return
                case .unframeable:
                    mode = .decoderOnly
                case .head(let length, let body, let bundle):
                    if let bundle {
                        lastToken = bundle.bearerToken
                        bytes.moveReaderIndex(forwardBy: length)
                        bundleHandler.requestRecognized(bundle)
                    } else {
                        let head = bytes.readSlice(length: length)!
                        switch body {
                        case .none: break
                        case .length(let count): mode = .body(remaining: count)
                        case .unknown: mode = .decoderOnly
                        }
                        handOn(head, context: context)
                    }
                }
            }
        }
    }

    /// Hands bytes on to the decoder; they may start a request, whose deadline then starts.
    private func handOn(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        bundleHandler.requestBytesArrived()
        handedOn = true
        context.fireChannelRead(wrapInboundOut(bytes))
    }

    private func refuse(_ error: DepotError) {
        mode = .refused
        partial = nil
        bundleHandler.requestRejected(error)
    }
}

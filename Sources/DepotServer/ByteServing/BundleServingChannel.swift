import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1 child channel with Depot's bundle handler inserted just before the HTTP-types
/// codec, where request and response parts are still NIO's and bodies may be file regions.
///
/// The same wrapping pattern `HummingbirdTLS` uses: run `HTTP1Channel`'s setup, then add to its pipeline.
///
/// NIO's server pipeline pairs its request decoder with its response encoder: the decoder queues the method of
/// every request it reads, and the encoder takes one off the queue for every response head it encodes, to leave
/// out the body of a HEAD answer. Bundle answers are written below the encoder, so they would never take theirs:
/// the queue would grow by one per bundle request, and the next routed answer would be framed for the wrong
/// request (after a bundle HEAD, a routed GET lost its body and the client waited for it). The decoder is
/// therefore replaced by one that feeds no encoder, and the bundle handler, which sees every request, leaves out
/// the bodies of routed HEAD answers itself.
struct BundleServingChannel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let makeHandler: @Sendable (any Channel) -> BundleChannelHandler

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let codec = try pipeline.context(handlerType: HTTP1ToHTTPServerCodec.self)
            let handler = makeHandler(channel)
            // A 64 KiB range is one file region: under NIO's default high-water mark (64 KiB) writing it would make
            // the channel unwritable and writable again around every answer, two events through the whole pipeline.
            try channel.syncOptions?.setOption(
                ChannelOptions.writeBufferWaterMark, value: .init(low: 128 * 1024, high: 256 * 1024))
            // A write the socket took in part is not tried again at once: the socket's buffer is full, and the retry
            // would only be told so (one wasted `sendfile` per buffer of a large bundle). NIO's default tries up to
            // 16 more times; the next attempt now waits for the socket to become writable, as nginx's does.
            try channel.syncOptions?.setOption(ChannelOptions.writeSpin, value: 0)
            try Self.install(handler, before: codec.handler, in: pipeline)
            return value
        }
    }

    /// Adds bundle serving to a pipeline NIO's `configureHTTPServerPipeline` set up: the request decoder is
    /// replaced by one that feeds no encoder (see above), `handler` goes just before `next` (where requests are
    /// still NIO's parts), and the request recognizer first; it holds arriving bytes until the swap is done.
    ///
    /// The decoder's limits are the handler's head limits: past a request the recognizer cannot frame, the decoder
    /// alone reads the connection's heads, and refuses one over them (with a 400).
    static func install(
        _ handler: BundleChannelHandler, before next: any ChannelHandler,
        in pipeline: ChannelPipeline.SynchronousOperations
    ) throws {
        let paired = try pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self)
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = handler.headLimits.maxHeadBytes
        limits.maxHeaderListSize = handler.headLimits.maxHeadBytes
        limits.maxHeaderFieldCount = handler.headLimits.maxFields
        let decoder = HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: limits)
        try pipeline.addHandler(ByteToMessageHandler(decoder), position: .after(paired.handler))
        try pipeline.addHandler(handler, position: .before(next))
        let scanner = RequestHeadScanner(
            limits: handler.headLimits,
            edgeSecretField: handler.responder.access.edgeSecretField.map { Array($0.lowercased().utf8) })
        let recognizer = RequestRecognizer(bundleHandler: handler, scanner: scanner)
        try pipeline.addHandler(recognizer, position: .first)
        // A decoder leaves the pipeline on a later turn of the event loop: until it has, bytes that arrive wait in
        // the recognizer, so that they reach the new decoder only (the old one would hand it parts, not bytes).
        recognizer.holdBytes(until: pipeline.removeHandler(context: paired))
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

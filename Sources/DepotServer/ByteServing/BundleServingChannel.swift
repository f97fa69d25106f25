import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1 child channel with Depot's bundle handler inserted just before the HTTP-types
/// codec, where request and response parts are still NIO's and bodies may be file regions.
///
/// The same wrapping pattern `HummingbirdTLS` uses: run `HTTP1Channel`'s setup, then add to its pipeline.
struct BundleServingChannel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let makeHandler: @Sendable (any Channel) -> BundleChannelHandler

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let codec = try pipeline.context(handlerType: HTTP1ToHTTPServerCodec.self)
            let handler = makeHandler(channel)
            try pipeline.addHandler(handler, position: .before(codec.handler))
            try pipeline.addHandler(RequestArrivalObserver(bundleHandler: handler), position: .first)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

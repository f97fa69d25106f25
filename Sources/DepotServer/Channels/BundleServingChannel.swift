import DepotOrigin
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1 child channel with Depot's byte path (``BundleOrigin``) inserted just before the HTTP-types
/// codec, where request and response parts are still NIO's and bodies may be file regions.
///
/// The same wrapping pattern `HummingbirdTLS` uses: run `HTTP1Channel`'s setup, then add to its pipeline.
struct BundleServingChannel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let origin: BundleOrigin

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let codec = try channel.pipeline.syncOperations.context(handlerType: HTTP1ToHTTPServerCodec.self)
            try origin.install(on: channel, before: codec.handler)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

import Metrics
import HummingbirdCore
import Logging
import NIOCore

/// Counts the connections sending bundle bytes right now (`depot_downloads_in_flight`), from below every other
/// handler: bundle bodies are the only file regions written to the socket, so a connection with a file region
/// whose write has not completed is a download in flight. A write ends, and the count drops, when its bytes
/// were handed to the kernel or the connection failed.
///
/// It watches the socket side of the pipeline rather than the bundle handler, which it does not touch; behind
/// TLS, where bundles are read into buffers, it would see none.
final class DownloadsInFlightHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private let gauge: Meter
    /// File region writes not yet completed on this connection.
    private var outstanding = 0

    init(gauge: Meter) {
        self.gauge = gauge
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .fileRegion = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        outstanding += 1
        if outstanding == 1 { gauge.increment() }
        let written = promise ?? context.eventLoop.makePromise(of: Void.self)
        written.futureResult.assumeIsolated().whenComplete { _ in
            self.outstanding -= 1
            if self.outstanding == 0 { self.gauge.decrement() }
        }
        context.write(data, promise: written)
    }
}

/// A server child channel that adds `DownloadsInFlightHandler` at the socket end of the pipeline another
/// child channel set up (the same wrapping pattern as `BundleServingChannel`).
struct DownloadMeteringChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let gauge: Meter

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { [gauge] value in
            try channel.pipeline.syncOperations.addHandler(DownloadsInFlightHandler(gauge: gauge), position: .first)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

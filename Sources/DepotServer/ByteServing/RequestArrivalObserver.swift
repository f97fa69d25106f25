import NIOCore

/// Sits first in the pipeline, before the HTTP decoder, and tells the bundle handler when request bytes
/// arrive, so that a request's deadline runs from its first byte (a head trickled in is timed too).
///
/// While the pipeline is being set up (its request decoder swapped, see ``BundleServingChannel``), it holds the
/// bytes that arrive, and hands them on once the new decoder is the only one.
final class RequestArrivalObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let bundleHandler: BundleChannelHandler
    /// Bytes held until the pipeline is ready for them; nil once it is.
    private var held: [ByteBuffer]?
    private var context: ChannelHandlerContext?

    init(bundleHandler: BundleChannelHandler) {
        self.bundleHandler = bundleHandler
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
        bundleHandler.requestBytesArrived()
        if held != nil {
            held?.append(unwrapInboundIn(data))
            return
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if held == nil { context.fireChannelReadComplete() }
    }

    private func releaseBytes() {
        guard let bytes = held else { return }
        held = nil
        guard let context, !bytes.isEmpty else { return }
        for buffer in bytes { context.fireChannelRead(wrapInboundOut(buffer)) }
        context.fireChannelReadComplete()
    }
}

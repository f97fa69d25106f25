import NIOCore

/// Sits first in the pipeline, before the HTTP decoder, and tells the bundle handler when request bytes
/// arrive, so that a request's deadline runs from its first byte (a head trickled in is timed too).
final class RequestArrivalObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let bundleHandler: BundleChannelHandler

    init(bundleHandler: BundleChannelHandler) {
        self.bundleHandler = bundleHandler
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        bundleHandler.requestBytesArrived()
        context.fireChannelRead(data)
    }
}

import DepotAPI
import Metrics
import NIOCore

/// Answers whose file parts go out as buffers (behind TLS).
extension BundleChannelHandler {
    /// Writes an answer with file parts as buffers read in chunks (``BufferedBodyWrite``) and tells the machine how
    /// the write went; a download counts as in flight until then.
    func sendBuffered(
        _ responseHead: ByteBuffer, _ body: [BundleResponseWriter.BodyPart], reader: FileChunkReader, isDownload: Bool,
        output: ChannelHandlerContext, context: ChannelHandlerContext
    ) {
        let promise = context.eventLoop.makePromise(of: Void.self)
        let downloads = isDownload ? downloadsInFlight : nil
        downloads?.increment()
        completingInline = true
        defer { completingInline = false }
        BufferedBodyWrite.start(
            head: responseHead, body: body, output: output, reader: reader, files: loopState.bundleFiles, promise: promise)
        promise.futureResult.assumeIsolated().whenComplete { result in
            downloads?.decrement()
            let inline = self.completingInline
            self.answerWritten(succeeded: (try? result.get()) != nil, inline: inline, context: context)
        }
    }
}

extension BundleResponseWriter.BodyPart {
    /// Whether the part is a range of a file (rather than bytes in memory).
    var isFile: Bool {
        if case .file = self { return true }
        return false
    }
}

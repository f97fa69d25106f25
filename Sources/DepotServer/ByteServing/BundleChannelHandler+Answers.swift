import DepotCore
import DepotHTTP
import Metrics
import NIOCore
import NIOHTTP1

/// Writing the answers the connection's state machine asks for: bundles, grant checks, and the 400 and 408.
extension BundleChannelHandler {
    /// Answers a bundle request: the grant, the bundle and RFC 9110's rules decide, in memory.
    func answerBundle(
        _ fields: BundleRequestFields, framing: AnswerFraming, keepAlive: Bool, context: ChannelHandlerContext
    ) {
        let now = clock()
        let decision = responder.answer(fields, now: now, grantCache: &files.grantCache)
        let served =
            fields.method == .GET && recorder != nil
            ? AnswerEvidence.servedEvent(decision, client: context.channel.remoteAddress, now: now) : nil
        evidence = (served, edgeFills == nil ? nil : AnswerEvidence.edgeFillBytes(decision, method: fields.method))
        let (responseHead, body) = BundleResponseWriter.render(
            decision, request: framing, date: files.dateCache.value(now: now), keepAlive: keepAlive, files: files,
            allocator: context.channel.allocator)
        send(
            responseHead, body, isDownload: AnswerEvidence.sendsBundleBytes(decision, method: fields.method),
            context: context)
    }

    /// Answers the grant check an edge makes before serving a bundle.
    func answerCheck(_ head: HTTPRequestHead, keepAlive: Bool, context: ChannelHandlerContext) {
        let now = clock()
        let decision = checker.answer(head, now: now, grantCache: &files.grantCache)
        evidence = (nil, nil)
        let (responseHead, body) = BundleResponseWriter.renderCheck(
            decision, request: AnswerFraming(head), date: files.dateCache.value(now: now), keepAlive: keepAlive,
            allocator: context.channel.allocator)
        send(responseHead, body, context: context)
    }

    /// Writes an answer's bytes and tells the machine how the write went; a download counts as in flight
    /// until then.
    private func send(
        _ responseHead: ByteBuffer, _ body: [BundleResponseWriter.BodyPart], isDownload: Bool = false,
        context: ChannelHandlerContext
    ) {
        // Written from the response encoder's place in the pipeline, so the bytes go straight to the socket:
        // the head is already serialized, and file regions pass untouched.
        guard let raw = rawOutput else {
            // The pipeline always has NIO's response encoder; without it there is no way to answer.
            context.close(promise: nil)
            return
        }
        if case .buffers(let reader) = bodyWriter, body.contains(where: \.isFile) {
            sendBuffered(responseHead, body, reader: reader, isDownload: isDownload, output: raw, context: context)
            return
        }
        var parts: [IOData] = [.byteBuffer(responseHead)]
        for part in body {
            switch part {
            case .bytes(let buffer):
                parts.append(.byteBuffer(buffer))
            case .file(let handle, let offset, let length):
                parts.append(.fileRegion(FileRegion(fileHandle: handle, readerIndex: Int(offset), endIndex: Int(offset + length))))
            }
        }
        let last = parts.removeLast()
        for part in parts { raw.write(NIOAny(part), promise: nil) }
        completingInline = true
        defer { completingInline = false }
        let promise = context.eventLoop.makePromise(of: Void.self)
        let downloads = isDownload ? downloadsInFlight : nil
        downloads?.increment()
        raw.writeAndFlush(NIOAny(last), promise: promise)
        promise.futureResult.assumeIsolated().whenComplete { result in
            downloads?.decrement()
            let inline = self.completingInline
            self.answerWritten(succeeded: (try? result.get()) != nil, inline: inline, context: context)
        }
    }

    /// Depot's error answer outside any request (the request is unreadable or late), then close.
    func answerErrorAndClose(_ error: DepotError, context: ChannelHandlerContext) {
        let (head, body) = BundleResponseWriter.renderError(
            error, extraHeaders: [], request: AnswerFraming(isHead: false),
            date: files.dateCache.value(now: clock()), keepAlive: false, allocator: context.channel.allocator)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        for case .bytes(let buffer) in body { context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            LingeringClose.close(context: context)
        }
    }
}

import DepotAPI
import DepotCore
import DepotHTTP
import Metrics
import NIOCore
import NIOHTTP1

/// Writing the answers the connection's state machine asks for: bundles, grant checks, and the 400 and 408.
extension BundleChannelHandler {
    /// Answers a bundle request: the grant, the bundle and RFC 9110's rules decide, in memory. A bundle whose bytes
    /// are to be sent but whose file is not on this disk is first brought in by the file source (`fetched` is then
    /// true for the second decision, which answers 503 if the file is still missing).
    func answerBundle(
        _ fields: BundleRequestFields, framing: AnswerFraming, keepAlive: Bool, context: ChannelHandlerContext,
        fetched: Bool = false
    ) {
        let now = clock()
        let decision = responder.answer(fields, now: now, grantCache: &loopState.grantCache, bundleMemo: &loopState.indexMemo)
        if loopState.bundleFiles.hasSource, let source = loopState.bundleFiles.source, !fetched, let bundle = decision.bundle,
            AnswerEvidence.sendsBundleBytes(decision, method: fields.method),
            !loopState.holds(bundle.version.digest)
        {
            let (digest, size) = (bundle.version.digest, bundle.version.size)
            // Reserved until the second decision has opened the file (an answer sending it then holds it).
            source.reserveFile(digest)
            let promise = context.eventLoop.makePromise(of: Void.self)
            promise.completeWithTask { try await source.bringIn(digest, size: size) }
            promise.futureResult.assumeIsolated().whenComplete { _ in
                self.answerBundle(fields, framing: framing, keepAlive: keepAlive, context: context, fetched: true)
                source.unreserveFile(digest)
            }
            return
        }
        // The evidence is empty here (the machine records it before the next answer starts); it is set only when there is
        // some, as assigning a `ServedBytes?` goes through its value witness even for nil.
        if recordsServedBytes, AnswerEvidence.isGET(fields.method),
            let served = AnswerEvidence.servedEvent(decision, client: clientAddress(context), now: now)
        {
            evidence.served = served
        }
        if edgeFills != nil { evidence.edgeBytes = AnswerEvidence.edgeFillBytes(decision, method: fields.method) }
        let date = loopState.dateHeader.value(now: now)
        let (responseHead, body, status) = BundleResponseWriter.render(
            decision, request: framing, date: date, second: now, keepAlive: keepAlive, requestId: fields.requestId,
            loopState: loopState, allocator: allocator(context))
        if let metrics {
            let method: BytePathRequestCounters.Method =
                switch fields.method {
                case .GET: .get
                case .HEAD: .head
                default: .other
                }
            loopState.counters.count(.bundle, method, status: status, metrics: metrics)
        }
        let sendsFile = body.contains(where: \.isFile)
        if sendsFile, let digest = decision.bundle?.version.digest {
            loopState.bundleFiles.answerStarted(digest)
            sendingFile = digest
        }
        send(
            responseHead, body, isDownload: AnswerEvidence.sendsBundleBytes(decision, method: fields.method),
            context: context)
    }

    /// The channel's allocator, looked up once (through the channel it is a call on an existential).
    private func allocator(_ context: ChannelHandlerContext) -> ByteBufferAllocator {
        if let allocator = channelAllocator { return allocator }
        let allocator = context.channel.allocator
        channelAllocator = allocator
        return allocator
    }

    /// The client's address as text, read from the channel once per connection (it does not change).
    private func clientAddress(_ context: ChannelHandlerContext) -> String {
        if let clientText { return clientText }
        guard let text = context.channel.remoteAddress?.ipAddress else { return "unknown" }
        clientText = text
        return text
    }

    /// Answers the grant check an edge makes before serving a bundle.
    func answerCheck(_ head: HTTPRequestHead, keepAlive: Bool, context: ChannelHandlerContext) {
        let now = clock()
        let decision = checker.answer(head, now: now, grantCache: &loopState.grantCache)
        evidence = (nil, nil)
        let (responseHead, body, status) = BundleResponseWriter.renderCheck(
            decision, request: AnswerFraming(head), date: loopState.dateHeader.value(now: now), keepAlive: keepAlive,
            requestId: RequestId.accepted(head.headers.first(name: "X-Request-Id")), allocator: context.channel.allocator)
        if let metrics {
            loopState.counters.count(
                .grantCheck, head.method == .GET ? .get : head.method == .HEAD ? .head : .other, status: status,
                metrics: metrics)
        }
        send(responseHead, body, context: context)
    }

    /// Writes an answer's bytes and tells the machine how the write went; a download counts as in flight
    /// until then.
    private func send(
        _ responseHead: consuming ByteBuffer, _ body: consuming [BundleResponseWriter.BodyPart], isDownload: Bool = false,
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
        // An answer whose body starts with a file's bytes carries the first of them in its head's buffer, so that
        // both leave in one segment (the head alone would cost the client a wake-up and a read of its own). Any
        // other answer with file parts is corked instead, as nginx's `tcp_nopush` sends them; uncorking after the
        // flush sends what is left at once.
        var prefixed = false
        if body.first?.isFile == true {
            // The loop's kept head storage is this head's: let go of it while the file's bytes are appended (they
            // would copy it otherwise), and keep it again, grown, for the next answer.
            loopState.releaseHeadBuffer()
            prefixed = Self.takeFilePrefix(into: &responseHead, body: &body)
            loopState.keepHeadBuffer(responseHead)
        }
        let corked = !prefixed && Self.shouldCork(body) && setCork(true)
        defer { if corked { _ = setCork(false) } }
        // The last part is written with the flush, and tells when the answer went out.
        var last = IOData.byteBuffer(responseHead)
        for part in body {
            raw.write(NIOAny(last), promise: nil)
            switch part {
            case .bytes(let buffer):
                last = .byteBuffer(buffer)
            case .file(let handle, let offset, let length):
                last = .fileRegion(FileRegion(fileHandle: handle, readerIndex: Int(offset), endIndex: Int(offset + length)))
            }
        }
        completingInline = true
        defer { completingInline = false }
        let promise = context.eventLoop.makePromise(of: Void.self)
        // One answer of ours is written at a time (the machine waits for its end), so the handler holds its facts.
        countedDownload = isDownload && downloadsInFlight != nil
        if countedDownload { downloadsInFlight?.increment() }
        raw.writeAndFlush(NIOAny(last), promise: promise)
        // The callback holds the handler only (no context of its own to allocate).
        promise.futureResult.assumeIsolated().whenComplete { result in self.answerSent(result) }
    }

    /// The answer being written went out, or failed.
    private func answerSent(_ result: Result<Void, any Error>) {
        if countedDownload {
            countedDownload = false
            downloadsInFlight?.decrement()
        }
        guard let context = ownContext else { return }
        let succeeded: Bool
        switch result {
        case .success: succeeded = true
        case .failure: succeeded = false
        }
        answerWritten(succeeded: succeeded, inline: completingInline, context: context)
    }

    /// Depot's error answer outside any request (the request is unreadable or late), then close.
    func answerErrorAndClose(_ error: DepotError, context: ChannelHandlerContext) {
        let (head, body) = BundleResponseWriter.renderError(
            error, extraHeaders: [], request: AnswerFraming(isHead: false),
            date: loopState.dateHeader.value(now: clock()), keepAlive: false, requestId: RequestId.generate(),
            allocator: context.channel.allocator)
        // No request was read: its route and method are unknown.
        if let metrics { loopState.counters.count(.unmatched, .other, status: error.status, metrics: metrics) }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        for case .bytes(let buffer) in body { context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            self.lingering.start(context: context)
        }
    }
}

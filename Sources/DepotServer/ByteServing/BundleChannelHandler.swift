import DepotCore
import DepotHTTP
import Logging
import NIOCore
import NIOHTTP1

/// Answers `/v1/bundles/` requests below Hummingbird, writing file regions (sendfile) straight from
/// open descriptors, and hands every other request on to Hummingbird unchanged.
///
/// Sits between NIO's HTTP/1 codec and the HTTP-types codec of Hummingbird's pipeline. Because the
/// requests it answers are invisible to Hummingbird's connection state handler, it keeps HTTP/1.1's
/// response order itself (a request behind one still being answered waits), closes idle connections,
/// times out requests that do not fully arrive within the request timeout (see ``RequestDeadline``; the
/// `RequestArrivalObserver` before the decoder reports their first bytes), and on a graceful shutdown lets a
/// running download finish (within a grace period) before closing.
final class BundleChannelHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Which handler owns the request whose parts are arriving.
    private enum CurrentRequest { case none, ours, forwarded }

    private let responder: BundleResponder
    private let checker: GrantCheckResponder
    private let recorder: ServedBytesRecorder?
    private let edgeFills: EdgeFillCounter?
    private let files: LoopFileCache
    private let idleTimeout: TimeAmount
    private let requestTimeout: TimeAmount
    private let shutdownGrace: TimeAmount
    private let clock: @Sendable () -> Int64

    private var current = CurrentRequest.none
    private var forwardedInFlight = 0
    private var answering = false
    private var pending = CircularBuffer<HTTPServerRequestPart>()
    private var readHeldBack = false
    private var quiescing = false
    private var idleTask: Scheduled<Void>?
    /// When the connection last became idle; the idle timer compares against it instead of being
    /// rescheduled on every request.
    private var idleSince = NIODeadline.now()
    private var completingInline = false
    /// The context of NIO's `HTTPResponseEncoder`: writing through it skips the encoder.
    private var rawOutput: ChannelHandlerContext?
    private var graceTask: Scheduled<Void>?
    /// This handler's own context, for the request deadline (started from the arrival observer's).
    private var ownContext: ChannelHandlerContext?
    /// Whether a request has begun to arrive and its end has not.
    private var arriving = false
    private var deadlineTask: Scheduled<Void>?
    /// Whether Hummingbird has written the head of a response whose end has not been written yet.
    private var forwardedResponseStarted = false
    /// For each request handed to Hummingbird and not yet answered, oldest first: whether it is a HEAD, whose
    /// answer carries no body (RFC 9110 §9.3.2). NIO's encoder no longer knows (see `BundleServingChannel`).
    private var forwardedHeads = CircularBuffer<Bool>()
    /// Whether the routed answer being written answers a HEAD.
    private var answeringForwardedHead = false
    /// Set when a request's deadline passed while a response was being written: close once it ends.
    private var closeAfterResponse = false
    /// How the arriving request's deadline runs, and when its body last made progress.
    private var deadlinePolicy = RequestDeadline.Policy.wholeRequest
    private var lastProgress = NIODeadline.now()
    /// Since when a read asked of the socket has brought nothing: while no read is asked (the route is
    /// busy with what it has), a stalled upload is the server's doing, not the client's.
    private var readAskedSince: NIODeadline?

    init(
        responder: BundleResponder, checker: GrantCheckResponder, recorder: ServedBytesRecorder?,
        edgeFills: EdgeFillCounter? = nil, files: LoopFileCache, idleTimeout: TimeAmount, requestTimeout: TimeAmount,
        shutdownGrace: TimeAmount, clock: @escaping @Sendable () -> Int64
    ) {
        self.requestTimeout = requestTimeout
        self.responder = responder
        self.checker = checker
        self.recorder = recorder
        self.edgeFills = edgeFills
        self.files = files
        self.idleTimeout = idleTimeout
        self.shutdownGrace = shutdownGrace
        self.clock = clock
    }

    // MARK: inbound

    func handlerAdded(context: ChannelHandlerContext) {
        // Bundle answers are written as bytes from the response encoder's context (see `answer`).
        rawOutput = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
        ownContext = context
        if context.channel.isActive { startIdleTimer(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        startIdleTimer(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        idleTask?.cancel()
        graceTask?.cancel()
        deadlineTask?.cancel()
        pending.removeAll()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        idleSince = .now()
        readAskedSince = nil
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let head):
            startDeadline(context: context)
            deadlinePolicy = RequestDeadline.policy(method: head.method, uri: head.uri)
            lastProgress = .now()
        case .body:
            if deadlinePolicy == .progress { lastProgress = .now() }
        case .end:
            arriving = false
            deadlinePolicy = .wholeRequest
            deadlineTask?.cancel()
            deadlineTask = nil
        }
        if pending.isEmpty && canProcess(part) {
            process(part, context: context)
        } else {
            pending.append(part)
        }
    }

    func read(context: ChannelHandlerContext) {
        // Hold back further reads while requests wait, so a client cannot make us buffer without bound.
        if pending.isEmpty {
            if readAskedSince == nil { readAskedSince = .now() }
            context.read()
        } else {
            readHeldBack = true
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        quiescing = true
        if answering || current == .ours {
            // Let the running download end, but not beyond the grace period.
            graceTask = context.eventLoop.assumeIsolated().scheduleTask(in: shutdownGrace) {
                context.close(promise: nil)
            }
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError, !answering, forwardedInFlight == 0, current != .forwarded {
            // The request cannot be read: answer 400 and close, as NIO's protocol error handler would.
            let (head, body) = BundleResponseWriter.renderError(
                .badRequest("the request is not valid HTTP/1.1"), extraHeaders: [],
                request: HTTPRequestHead(version: .http1_1, method: .GET, uri: "/"),
                date: files.dateCache.value(now: clock()), keepAlive: false, allocator: context.channel.allocator)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            for case .bytes(let buffer) in body { context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil) }
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
            return
        }
        context.fireErrorCaught(error)
    }

    // MARK: outbound (Hummingbird's responses)

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .head(let head) = unwrapOutboundIn(data), !(100..<200).contains(head.status.code) || head.status.code == 101 {
            forwardedResponseStarted = true
            answeringForwardedHead = forwardedHeads.popFirst() ?? false
        }
        if case .body = unwrapOutboundIn(data), answeringForwardedHead {
            // A HEAD answer has the header fields of the GET one and no body: the bytes are not sent.
            promise?.fail(NIOHTTPResponseEncoderError.responseBodyNotAllowed)
            return
        }
        if case .end = unwrapOutboundIn(data) {
            forwardedInFlight -= 1
            forwardedResponseStarted = false
            var data = data
            if answeringForwardedHead {
                // Below the encoder, so that no chunked terminator follows a head announcing a chunked body;
                // an empty write completes the promise once the head went out.
                answeringForwardedHead = false
                guard let raw = rawOutput else {
                    context.close(promise: nil)
                    return
                }
                data = NIOAny(IOData.byteBuffer(context.channel.allocator.buffer(capacity: 0)))
                if closeAfterResponse {
                    let written = context.eventLoop.makePromise(of: Void.self)
                    written.futureResult.cascade(to: promise)
                    raw.write(data, promise: written)
                    written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
                    return
                }
                raw.write(data, promise: promise)
                if forwardedInFlight == 0 {
                    context.eventLoop.assumeIsolated().execute { self.drain(context: context) }
                }
                return
            }
            if closeAfterResponse {
                let written = context.eventLoop.makePromise(of: Void.self)
                written.futureResult.cascade(to: promise)
                context.write(data, promise: written)
                written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
                return
            }
            context.write(data, promise: promise)
            if forwardedInFlight == 0 {
                context.eventLoop.assumeIsolated().execute { self.drain(context: context) }
            }
            return
        }
        context.write(data, promise: promise)
    }

    // MARK: request flow

    /// The interim answer to `Expect: 100-continue`.
    private static let continueBytes = ByteBuffer(string: "HTTP/1.1 100 Continue\r\n\r\n")

    private func canProcess(_ part: HTTPServerRequestPart) -> Bool {
        guard case .head(let head) = part else { return true }
        if answering { return false }
        if forwardedInFlight > 0 && Self.claims(head.uri) { return false }
        return true
    }

    /// Whether this handler answers a request target itself: a bundle, or the grant check.
    private static func claims(_ uri: String) -> Bool {
        BundleRequestTarget(uri: uri) != nil || GrantCheckResponder.isCheck(uri: uri)
    }

    /// Answers or hands on one part; returns whether it was handed on to Hummingbird.
    @discardableResult
    private func process(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) -> Bool {
        switch part {
        case .head(let head):
            if let target = BundleRequestTarget(uri: head.uri) {
                current = .ours
                answer(head, target: target, context: context)
                return false
            }
            if GrantCheckResponder.isCheck(uri: head.uri) {
                current = .ours
                answerCheck(head, context: context)
                return false
            }
            if RequestDeadline.sendsContinue(head, earlierAnswersPending: answering || forwardedInFlight > 0) {
                // RFC 9110 §10.1.1: the client waits for this before sending an upload's body (curl -T does).
                rawOutput?.writeAndFlush(NIOAny(IOData.byteBuffer(Self.continueBytes)), promise: nil)
            }
            current = .forwarded
            forwardedInFlight += 1
            forwardedHeads.append(head.method == .HEAD)
        case .body:
            guard current == .forwarded else { return false }
        case .end:
            defer { current = .none }
            guard current == .forwarded else { return false }
        }
        context.fireChannelRead(wrapInboundOut(part))
        return true
    }

    private func drain(context: ChannelHandlerContext) {
        var forwarded = false
        while let part = pending.first, canProcess(part) {
            pending.removeFirst()
            forwarded = process(part, context: context) || forwarded
        }
        if forwarded {
            // Parts handed on outside a read burst: Hummingbird's async channel delivers its buffer on
            // read-complete, so end the burst ourselves.
            context.fireChannelReadComplete()
        }
        if pending.isEmpty && readHeldBack {
            readHeldBack = false
            if readAskedSince == nil { readAskedSince = .now() }
            context.read()
        }
        if isIdle { idleSince = .now() }
    }

    private func answer(_ head: HTTPRequestHead, target: BundleRequestTarget, context: ChannelHandlerContext) {
        answering = true
        let now = clock()
        let keepAlive = head.isKeepAlive && !quiescing
        let decision = responder.answer(head, target: target, now: now, grantCache: &files.grantCache)
        let served = head.method == .GET && recorder != nil
            ? AnswerEvidence.servedEvent(decision, client: context.channel.remoteAddress, now: now) : nil
        let edgeBytes = edgeFills == nil ? nil : AnswerEvidence.edgeFillBytes(decision, method: head.method)
        let (responseHead, body) = BundleResponseWriter.render(
            decision, request: head,
            date: files.dateCache.value(now: now), keepAlive: keepAlive, files: files,
            allocator: context.channel.allocator)
        send(responseHead, body, keepAlive: keepAlive, context: context, served: served, edgeBytes: edgeBytes)
    }

    private func answerCheck(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        answering = true
        let now = clock()
        let keepAlive = head.isKeepAlive && !quiescing
        let decision = checker.answer(head, now: now, grantCache: &files.grantCache)
        let (responseHead, body) = BundleResponseWriter.renderCheck(
            decision, request: head, date: files.dateCache.value(now: now), keepAlive: keepAlive,
            allocator: context.channel.allocator)
        send(responseHead, body, keepAlive: keepAlive, context: context, served: nil, edgeBytes: nil)
    }

    /// Writes an answer's bytes; once they all went out, records `served` with the ledger and counts
    /// `edgeBytes` as sent to an edge filling its cache.
    private func send(
        _ responseHead: ByteBuffer, _ body: [BundleResponseWriter.BodyPart], keepAlive: Bool,
        context: ChannelHandlerContext, served: ServedBytesRecorder.Event?, edgeBytes: Int64?
    ) {
        // Written from the response encoder's place in the pipeline, so the bytes go straight to the socket:
        // the head is already serialized, and file regions pass untouched.
        guard let raw = rawOutput else {
            // The pipeline always has NIO's response encoder; without it there is no way to answer.
            context.close(promise: nil)
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
        raw.writeAndFlush(NIOAny(last), promise: promise)
        promise.futureResult.assumeIsolated().whenComplete { result in
            self.answering = false
            if case .success = result {
                if let served { self.recorder?.record(served) }
                if let edgeBytes { self.edgeFills?.record(bodyBytes: edgeBytes) }
            }
            switch result {
            case .success where keepAlive && !self.quiescing && !self.closeAfterResponse:
                if self.completingInline {
                    // Completed inside `writeAndFlush`: the processing that started this answer goes on
                    // with the queue itself.
                    if self.isIdle { self.idleSince = .now() }
                } else {
                    // Completed later (a large body): resume the queue from the event loop, never from
                    // inside some other handler's write.
                    context.eventLoop.assumeIsolated().execute { self.drain(context: context) }
                }
            default:
                self.graceTask?.cancel()
                context.close(promise: nil)
            }
        }
    }

    private var isIdle: Bool {
        !answering && forwardedInFlight == 0 && current == .none && pending.isEmpty
    }

    // MARK: request deadline

    /// Called by the `RequestArrivalObserver` when bytes arrive: the first bytes of a request start its deadline.
    func requestBytesArrived(context _: ChannelHandlerContext) {
        guard let ownContext else { return }
        startDeadline(context: ownContext)
    }

    private func startDeadline(context: ChannelHandlerContext) {
        guard !arriving else { return }
        arriving = true
        scheduleDeadline(in: requestTimeout, context: context)
    }

    private func scheduleDeadline(in delay: TimeAmount, context: ChannelHandlerContext) {
        deadlineTask?.cancel()
        deadlineTask = context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
            self.deadlineTask = nil
            self.deadlinePassed(context: context)
        }
    }

    private func deadlinePassed(context: ChannelHandlerContext) {
        guard arriving, context.channel.isActive else { return }
        if deadlinePolicy == .progress {
            // An upload's body: the timer is not moved on every part; it checks here how long the client has
            // been silent while the server was asking for bytes.
            guard let asked = readAskedSince else {
                scheduleDeadline(in: requestTimeout, context: context)
                return
            }
            let quiet = NIODeadline.now() - max(lastProgress, asked)
            if quiet < requestTimeout {
                scheduleDeadline(in: requestTimeout - quiet, context: context)
                return
            }
        }
        let decision = RequestDeadline.decide(
            writingResponse: answering || forwardedResponseStarted,
            earlierAnswersPending: forwardedInFlight > (current == .forwarded ? 1 : 0),
            answered: current == .ours || (current == .forwarded && forwardedInFlight == 0))
        switch decision {
        case .closeAfterResponse:
            closeAfterResponse = true
        case .close:
            context.close(promise: nil)
        case .answerTimeoutAndClose:
            let error = DepotError(
                status: 408, code: "request-timeout",
                message: "the request did not arrive in full within \(requestTimeout.nanoseconds / 1_000_000_000) seconds")
            let (head, body) = BundleResponseWriter.renderError(
                error, extraHeaders: [], request: HTTPRequestHead(version: .http1_1, method: .GET, uri: "/"),
                date: files.dateCache.value(now: clock()), keepAlive: false, allocator: context.channel.allocator)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            for case .bytes(let buffer) in body { context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil) }
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        }
    }

    /// One timer per connection: when it fires, the connection is closed if it has been idle for the whole
    /// timeout, otherwise the timer is set for the rest of the timeout.
    private func startIdleTimer(context: ChannelHandlerContext, after delay: TimeAmount? = nil) {
        idleTask = context.eventLoop.assumeIsolated().scheduleTask(in: delay ?? idleTimeout) {
            self.idleTask = nil
            guard context.channel.isActive else { return }
            guard self.isIdle else {
                self.startIdleTimer(context: context)
                return
            }
            let idleFor = NIODeadline.now() - self.idleSince
            if idleFor >= self.idleTimeout {
                context.close(promise: nil)
            } else {
                self.startIdleTimer(context: context, after: self.idleTimeout - idleFor)
            }
        }
    }
}

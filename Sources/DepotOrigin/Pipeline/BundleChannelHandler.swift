import DepotAPI
import DepotCore
import DepotHTTP
import Metrics
import NIOCore
import NIOHTTP1

/// Answers `/v1/bundles/` requests and the grant check below Hummingbird, writing file regions (sendfile)
/// straight from open descriptors, and hands every other request on to Hummingbird unchanged.
///
/// Sits between NIO's HTTP/1 codec and the HTTP-types codec of Hummingbird's pipeline. Every decision (response
/// order, keep-alive, idle close, the request deadline, graceful shutdown, the 400, routed HEAD answers) is
/// ``BundleConnectionStateMachine``'s: this handler feeds it the channel's events and carries out its actions.
/// The ``RequestRecognizer`` before the decoder reports the first bytes of each request, answers plain bundle requests
/// through this handler without the decoder, and refuses heads over the limits. Time is the event
/// loop's (`EventLoop.now`).
final class BundleChannelHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    let responder: BundleResponder
    let checker: GrantCheckResponder
    let recorder: (any ServedBytesRecording)?
    /// Whether served bytes are recorded: asked per answer, where comparing the existential with nil copied it.
    let recordsServedBytes: Bool
    let edgeFills: EdgeFillCounter?
    /// What this connection's event loop keeps: open files, small answers, grants, the `Date` header, counters.
    let loopState: OriginLoopState
    let clock: @Sendable () -> Int64
    /// How large a request head may be (414, 431).
    let headLimits: RequestHeadLimits
    /// Bundle downloads being written, across connections (`depot_downloads_in_flight`), when metrics are kept.
    let downloadsInFlight: Meter?
    /// The server's metrics, where this handler's answers are counted (`depot_http_requests_total`), when kept.
    let metrics: BytePathMetrics?
    /// How file parts go out: file regions, or buffers behind TLS.
    let bodyWriter: BundleBodyWriter

    private var machine: BundleConnectionStateMachine
    /// The context of NIO's `HTTPResponseEncoder`: writing through it skips the encoder.
    var rawOutput: ChannelHandlerContext?
    /// This handler's own context, for events that come from the request recognizer.
    var ownContext: ChannelHandlerContext?
    /// The connection's socket options, looked up once (for `TCP_CORK` around an answer's head and file bytes).
    var socketOptions: (any NIOSynchronousChannelOptions)?
    /// Set while an answer is being written, to tell a completion inside the write from a later one.
    var completingInline = false
    /// Whether the answer being written counts as a download in flight.
    var countedDownload = false
    /// The bundle whose file the answer being written sends, when files come from a source (see ``BundleFiles``).
    var sendingFile: BundleDigest?
    /// The channel's allocator, once an answer needed it.
    var channelAllocator: ByteBufferAllocator?
    /// The client's address as text, once an answer needed it.
    var clientText: String?
    /// What the answer being written leaves behind once sent (see ``AnswerEvidence``).
    var evidence: (served: ServedBytes?, edgeBytes: Int64?) = (nil, nil)
    private var idleTask: Scheduled<Void>?
    /// The request deadline's timer, armed across requests.
    private let deadline = RequestDeadlineTimer()
    private var graceTask: Scheduled<Void>?
    /// The close after an answer that ends the connection.
    let lingering = LingeringClose()
    /// The shutdown event or decoder error being handled, for the action that passes it on.
    private var passing: (event: Any?, error: (any Error)?) = (nil, nil)

    init(
        responder: BundleResponder, checker: GrantCheckResponder, recorder: (any ServedBytesRecording)?,
        edgeFills: EdgeFillCounter? = nil, loopState: OriginLoopState, idleTimeout: TimeAmount, requestTimeout: TimeAmount,
        shutdownGrace: TimeAmount, headLimits: RequestHeadLimits = .defaults, metrics: BytePathMetrics? = nil,
        bodyWriter: BundleBodyWriter = .fileRegions, clock: @escaping @Sendable () -> Int64
    ) {
        self.metrics = metrics
        downloadsInFlight = metrics?.downloadsInFlight
        self.headLimits = headLimits
        self.bodyWriter = bodyWriter
        self.responder = responder
        self.checker = checker
        self.recorder = recorder
        recordsServedBytes = recorder != nil
        self.edgeFills = edgeFills
        self.loopState = loopState
        self.clock = clock
        machine = BundleConnectionStateMachine(
            timeouts: .init(idle: idleTimeout, request: requestTimeout, shutdownGrace: shutdownGrace), now: .now())
    }

    // MARK: events

    func handlerAdded(context: ChannelHandlerContext) {
        // Bundle answers are written as bytes from the response encoder's context (see `answer`).
        rawOutput = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
        ownContext = context
        socketOptions = context.channel.syncOptions
        if context.channel.isActive {
            machine.connectionStarted(now: context.eventLoop.now)
            runActions(context: context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        (ownContext, rawOutput, socketOptions) = (nil, nil, nil)
    }

    func channelActive(context: ChannelHandlerContext) {
        machine.connectionStarted(now: context.eventLoop.now)
        runActions(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        machine.connectionEnded()
        runActions(context: context)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        machine.partReceived(unwrapInboundIn(data), now: context.eventLoop.now)
        runActions(context: context)
    }

    func read(context: ChannelHandlerContext) {
        machine.readRequested(now: context.eventLoop.now)
        runActions(context: context)
    }

    /// Called by the ``RequestRecognizer`` after a read it answered in full, before NIO asks the pipeline for the
    /// next one: whether the recognizer may ask the socket itself (nothing waits), as ``read(context:)`` would allow.
    func readRequestedByRecognizer() -> Bool {
        guard let ownContext else { return false }
        return machine.readRequestedDirectly(now: ownContext.eventLoop.now)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        machine.shutdownRequested()
        passing = (event, nil)
        defer { passing = (nil, nil) }
        runActions(context: context)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        machine.parserFailed()
        passing = (nil, error)
        defer { passing = (nil, nil) }
        runActions(context: context)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is UploadAuthorizedEvent else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        let accepted = machine.uploadAuthorized(now: context.eventLoop.now)
        runActions(context: context)
        if accepted {
            promise?.succeed(())
        } else {
            promise?.fail(UploadAuthorizedEvent.ConnectionClosing())
        }
    }

    /// Called by the ``RequestRecognizer`` for every read from the socket: a lingering close waits while bytes come.
    func bytesArrived() {
        guard lingering.hasStarted, let ownContext else { return }
        lingering.noteArrival(now: ownContext.eventLoop.now)
    }

    /// Called by the ``RequestRecognizer`` when bytes arrive: the first bytes of a request start its deadline.
    func requestBytesArrived() {
        guard let ownContext else { return }
        machine.requestBytesArrived()
        runActions(context: ownContext)
    }

    /// Called by the ``RequestRecognizer`` for a plain bundle request it read from the bytes.
    func requestRecognized(_ request: RecognizedBundleRequest) {
        guard let ownContext else { return }
        machine.requestRecognized(request, now: ownContext.eventLoop.now)
        runActions(context: ownContext)
    }

    /// Called by the ``RequestRecognizer`` for a head over the limits (414, 431).
    func requestRejected(_ error: DepotError) {
        guard let ownContext else { return }
        machine.requestRejected(error)
        runActions(context: ownContext)
    }

    // MARK: Hummingbird's answers

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part: BundleConnectionStateMachine.ResponsePart
        switch unwrapOutboundIn(data) {
        case .head(let head):
            let closes = head.headers[canonicalForm: "connection"].contains { $0.lowercased() == "close" }
            part = .head(status: Int(head.status.code), closes: closes)
        case .body: part = .body
        case .end: part = .end
        }
        switch machine.responseWritten(part) {
        case .passOn:
            context.write(data, promise: promise)
        case .dropBody:
            // A HEAD answer has the header fields of the GET one and no body: the bytes are not sent.
            promise?.fail(NIOHTTPResponseEncoderError.responseBodyNotAllowed)
        case .end(let belowEncoder, let thenClose):
            let written = thenClose ? context.eventLoop.makePromise(of: Void.self) : promise
            if belowEncoder, let raw = rawOutput {
                // An empty write below the encoder completes the end once the head went out.
                raw.write(NIOAny(IOData.byteBuffer(context.channel.allocator.buffer(capacity: 0))), promise: written)
            } else {
                context.write(data, promise: written)
            }
            if thenClose, let written {
                written.futureResult.cascade(to: promise)
                written.futureResult.assumeIsolated().whenComplete { _ in self.lingering.start(context: context) }
            }
        }
        runActions(context: context)
    }

    // MARK: actions

    /// Tells the machine how an answer's write went; a completion inside the write is carried on by the
    /// `runActions` that started the answer.
    func answerWritten(succeeded: Bool, inline: Bool, context: ChannelHandlerContext) {
        if let digest = sendingFile {
            sendingFile = nil
            loopState.bundleFiles.answerEnded(digest)
        }
        // A failed answer leaves no evidence (the machine records only what went out).
        if !succeeded { evidence = (nil, nil) }
        machine.answerWritten(succeeded: succeeded, inline: inline, now: context.eventLoop.now)
        if !inline { runActions(context: context) }
    }

    /// Carries out the machine's actions, in order.
    func runActions(context: ChannelHandlerContext) {
        while let action = machine.nextAction() {
            switch consume action {
            case .forward(let part):
                context.fireChannelRead(wrapInboundOut(part))
            case .endReadBurst:
                context.fireChannelReadComplete()
            case .answer(let kind, let head, let keepAlive):
                switch kind {
                case .bundle(let target):
                    let fields = BundleRequestFields(head, target: target, edgeSecretField: responder.access.edgeSecretField)
                    answerBundle(fields, framing: AnswerFraming(head), keepAlive: keepAlive, context: context)
                case .grantCheck:
                    answerCheck(head, keepAlive: keepAlive, context: context)
                }
            case .answerRecognized(let request, let keepAlive):
                answerBundle(
                    request, framing: AnswerFraming(isHead: request.isHead), keepAlive: keepAlive,
                    context: context)
            case .sendContinue:
                rawOutput?.writeAndFlush(NIOAny(IOData.byteBuffer(Self.continueBytes)), promise: nil)
            case .recordEvidence:
                // Only what an answer left is cleared: clearing a `ServedBytes?` that is nil still goes through its
                // value witness.
                if let served = evidence.served {
                    recorder?.record(served)
                    evidence.served = nil
                }
                if let edgeBytes = evidence.edgeBytes {
                    edgeFills?.record(bodyBytes: edgeBytes)
                    evidence.edgeBytes = nil
                }
            case .read:
                context.read()
            case .resumeLater:
                context.eventLoop.assumeIsolated().execute {
                    self.machine.resume(now: context.eventLoop.now)
                    self.runActions(context: context)
                }
            case .answerErrorAndClose(let error):
                answerErrorAndClose(error, context: context)
            case .passShutdownOn:
                if let event = passing.event { context.fireUserInboundEventTriggered(event) }
            case .passErrorOn:
                if let error = passing.error { context.fireErrorCaught(error) }
            case .close:
                context.close(promise: nil)
            case .scheduleIdleTimer(let delay):
                idleTask?.cancel()
                idleTask = schedule(in: delay, context: context) { $0.idleTimerFired(now: $1) }
            case .scheduleDeadline(let delay):
                deadline.schedule(in: delay, now: context.eventLoop.now, loop: context.eventLoop, listener: self)
            case .cancelDeadline:
                deadline.stop()
            case .scheduleGraceClose(let delay):
                graceTask?.cancel()
                graceTask = schedule(in: delay, context: context) { machine, _ in machine.graceExpired() }
            case .cancelGraceClose:
                graceTask?.cancel()
                graceTask = nil
            case .cancelTimers:
                for task in [idleTask, graceTask] { task?.cancel() }
                (idleTask, graceTask) = (nil, nil)
                deadline.cancel()
            }
        }
    }

    /// A timer that reports `event` to the machine, unless the connection is gone by then.
    private func schedule(
        in delay: TimeAmount, context: ChannelHandlerContext,
        _ event: @escaping (inout BundleConnectionStateMachine, NIODeadline) -> Void
    ) -> Scheduled<Void> {
        context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
            guard context.channel.isActive else { return }
            event(&self.machine, context.eventLoop.now)
            self.runActions(context: context)
        }
    }

    /// The interim answer to `Expect: 100-continue`.
    private static let continueBytes = ByteBuffer(string: "HTTP/1.1 100 Continue\r\n\r\n")
}

/// Bound to its channel's event loop.
@available(*, unavailable)
extension BundleChannelHandler: Sendable {}

extension BundleChannelHandler: RequestDeadlineListener {
    /// Whether the connection is up.
    var connectionIsUp: Bool { ownContext?.channel.isActive ?? false }

    /// The request deadline passed while the connection is up: the machine decides.
    func requestDeadlinePassed(now: NIODeadline) {
        guard let context = ownContext else { return }
        machine.deadlinePassed(now: now)
        runActions(context: context)
    }
}

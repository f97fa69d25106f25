import DepotAPI
import DepotCore
import NIOCore
import NIOHTTP1

/// The decisions of one HTTP/1.1 connection whose bundle and grant-check requests are answered below
/// Hummingbird: events in, actions out; it never touches a channel, a clock or a timer.
///
/// It keeps HTTP/1.1's response order (a request behind one still being answered waits, parts and all, and
/// reads stop while any wait), says when to answer and with which keep-alive, when the served bytes of an answer
/// count, when an idle connection closes, how a graceful shutdown lets a running download end, when a request
/// that does not fully arrive in time is answered 408 (see ``RequestDeadline``), when an unreadable one gets
/// its 400, and how a routed answer to a HEAD loses its body (RFC 9110 §9.3.2).
///
/// Every event method queues actions; ``nextAction()`` hands them out in order. The queue's storage is kept, so
/// a request costs no allocation for it. `BundleChannelHandler` feeds it the channel's events and carries out
/// the actions; the time of each event comes in as `now`.
struct BundleConnectionStateMachine {
    /// The timeouts of a connection.
    struct Timeouts {
        /// How long a connection may stay idle.
        var idle: TimeAmount
        /// How long a request may take to arrive (see ``RequestDeadline``).
        var request: TimeAmount
        /// How long a running answer may go on once a graceful shutdown began.
        var shutdownGrace: TimeAmount
    }

    /// Who owns the request whose parts are arriving.
    private enum Owner { case none, ours, forwarded }

    let timeouts: Timeouts

    private var actions = CircularBuffer<Action>(initialCapacity: 8)
    private var owner = Owner.none
    /// What waits for an earlier answer, oldest first.
    private var pending = CircularBuffer<Arrival>()
    private var readHeldBack = false
    /// Whether an answer of ours is being written, and whether its connection stays open after it.
    private var answering = false
    private var answerKeepsAlive = false
    /// Requests handed to Hummingbird whose answer has not ended.
    private var forwardedInFlight = 0
    /// For each request handed on whose answer has not begun, oldest first: whether it is a HEAD.
    private var forwardedHeads = CircularBuffer<Bool>()
    /// Whether Hummingbird has written an answer's head and not its end, and whether that answer is to a HEAD.
    private var forwardedResponseStarted = false
    private var answeringForwardedHead = false
    private var quiescing = false
    /// Set once the connection is being closed: nothing more is answered on it.
    private var closing = false
    /// Set when a request's deadline passed while an answer was being written: close once it ends.
    private var closeAfterResponse = false
    /// When the connection last became idle: the idle timer compares against it instead of being moved.
    private var idleSince: NIODeadline
    /// Whether a request has begun to arrive and its end has not; how its deadline runs.
    private var arriving = false
    private var deadlinePolicy = RequestDeadline.Policy.wholeRequest
    /// When the arriving body last made progress, and since when a read asked of the socket has brought nothing
    /// (while no read is asked, a stalled upload is the server's doing, not the client's).
    private var lastProgress: NIODeadline
    private var readAskedSince: NIODeadline?
    /// Whether a read was asked of the socket and nothing arrived since (kept under every policy, so that an upload
    /// whose key is accepted while its read waits is timed from then).
    private var readOutstanding = false
    /// Whether the arriving request is a body for the upload routes, which earns the progress policy once its route
    /// accepted the publisher key (``uploadAuthorized(now:)``), and whether it waits for `100 Continue`.
    private var uploadAwaitingKey = false
    private var awaitsContinue = false

    /// A connection that opened at `now`.
    init(timeouts: Timeouts, now: NIODeadline) {
        self.timeouts = timeouts
        idleSince = now
        lastProgress = now
    }

    /// The next action to carry out, oldest first.
    mutating func nextAction() -> Action? {
        actions.popFirst()
    }

    /// Whether nothing is being answered, waits, or is arriving.
    var isIdle: Bool {
        !answering && forwardedInFlight == 0 && owner == .none && pending.isEmpty
    }

    // MARK: connection

    /// The connection is up: the idle timer starts.
    mutating func connectionStarted(now: NIODeadline) {
        idleSince = now
        actions.append(.scheduleIdleTimer(in: timeouts.idle))
    }

    /// The connection is gone.
    mutating func connectionEnded() {
        closing = true
        pending.removeAll()
        actions.append(.cancelTimers)
    }

    /// The socket is asked for more bytes: granted while nothing waits, so that a client cannot make the
    /// connection buffer without bound.
    mutating func readRequested(now: @autoclosure () -> NIODeadline) {
        guard pending.isEmpty else {
            readHeldBack = true
            return
        }
        noteReadAsked(now: now())
        actions.append(.read)
    }

    /// The request recognizer asks the socket for more bytes itself, after a read it answered in full (the read
    /// then does not travel through the pipeline): true when a read may go now; when not, the pipeline's own
    /// read request follows and is held back by ``readRequested(now:)``.
    mutating func readRequestedDirectly(now: @autoclosure () -> NIODeadline) -> Bool {
        guard pending.isEmpty else { return false }
        noteReadAsked(now: now())
        return true
    }

    /// Since when a read asked of the socket has brought nothing: only an upload's body, whose deadline runs on
    /// progress, needs it (a new part clears it), so the clock is read only then.
    private mutating func noteReadAsked(now: @autoclosure () -> NIODeadline) {
        readOutstanding = true
        if readAskedSince == nil && arriving && deadlinePolicy == .progress { readAskedSince = now() }
    }

    // MARK: requests

    /// The first bytes of a request arrived (before the decoder made anything of them): its deadline starts.
    mutating func requestBytesArrived() {
        startDeadline()
    }

    /// The decoder made one part of a request.
    mutating func partReceived(_ part: HTTPServerRequestPart, now: NIODeadline) {
        // What is still in the decoder when the connection closes is nobody's request.
        guard !closing else { return }
        idleSince = now
        (readAskedSince, readOutstanding) = (nil, false)
        switch part {
        case .head(let head):
            startDeadline()
            // Every request starts on the whole-request deadline: an upload's body earns the progress policy only once
            // its key was accepted, so that a client without one cannot hold the connection by trickling bytes.
            deadlinePolicy = .wholeRequest
            uploadAwaitingKey = RequestDeadline.policy(method: head.method, uri: head.uri) == .progress
            awaitsContinue = RequestDeadline.sendsContinue(head, earlierAnswersPending: false)
            lastProgress = now
        case .body:
            if deadlinePolicy == .progress { lastProgress = now }
        case .end:
            requestEnded()
        }
        arrived(.part(part))
    }

    /// A plain bundle request was read straight from its bytes (see ``RequestHeadScanner``): its head and its
    /// end at once.
    mutating func requestRecognized(_ request: RecognizedBundleRequest, now: NIODeadline) {
        guard !closing else { return }
        idleSince = now
        (readAskedSince, readOutstanding) = (nil, false)
        requestEnded()
        arrived(.recognized(request))
    }

    /// The upload route of the request arriving accepted its publisher key: its body's deadline now runs on progress,
    /// and a client waiting for `100 Continue` gets it (RFC 9110 §10.1.1), unless an earlier answer is still due.
    /// Only while that request is the only one handed on and its body is still arriving: a late word from an earlier
    /// request never reaches a later one. False when the connection is closing (its request deadline may have passed
    /// first): the route must not start on a body that will not come.
    mutating func uploadAuthorized(now: NIODeadline) -> Bool {
        guard !closing else { return false }
        guard arriving, uploadAwaitingKey, owner == .forwarded, forwardedInFlight == 1 else { return true }
        uploadAwaitingKey = false
        deadlinePolicy = .progress
        lastProgress = now
        if readOutstanding && readAskedSince == nil { readAskedSince = now }
        if awaitsContinue && !answering && !forwardedResponseStarted { actions.append(.sendContinue) }
        awaitsContinue = false
        return true
    }

    /// A request head broke the limits (414, 431): answered once every earlier answer went out, then the
    /// connection closes (nothing after the head is read).
    mutating func requestRejected(_ error: DepotError) {
        guard !closing else { return }
        requestEnded()
        arrived(.rejected(error))
    }

    /// An answer of ours went out (`succeeded`) or failed; `inline` when that happened inside the write itself,
    /// with the processing that started the answer still running.
    mutating func answerWritten(succeeded: Bool, inline: Bool, now: NIODeadline) {
        answering = false
        if succeeded { actions.append(.recordEvidence) }
        guard succeeded, answerKeepsAlive, !quiescing, !closeAfterResponse else {
            actions.append(.cancelGraceClose)
            close()
            return
        }
        if inline {
            drain(now: now)
        } else {
            actions.append(.resumeLater)
        }
    }

    /// Carries on with the requests that waited (after ``Action/resumeLater``).
    mutating func resume(now: NIODeadline) {
        drain(now: now)
    }

    /// Hummingbird writes one part of a routed answer.
    mutating func responseWritten(_ part: ResponsePart) -> ResponseWrite {
        switch part {
        case .head(let status, let closes):
            // A non-final 1xx is followed by the final head of the same answer.
            if (100..<200).contains(status) && status != 101 { return .passOn }
            forwardedResponseStarted = true
            // The route answers without reading the rest of the request (a body over the limit): the connection
            // ends with the answer rather than reading that body to its end.
            if closes { closeAfterResponse = true }
            answeringForwardedHead = forwardedHeads.popFirst() ?? false
            return .passOn
        case .body:
            return answeringForwardedHead ? .dropBody : .passOn
        case .end:
            forwardedInFlight -= 1
            forwardedResponseStarted = false
            let toHead = answeringForwardedHead
            answeringForwardedHead = false
            if !closeAfterResponse && forwardedInFlight == 0 { actions.append(.resumeLater) }
            // Closing once this end went out: nothing that arrives later is answered.
            if closeAfterResponse { closing = true }
            return .end(belowEncoder: toHead, thenClose: closeAfterResponse)
        }
    }

    // MARK: failures, shutdown, timers

    /// The decoder cannot read the bytes: 400 and close when no answer is due, as NIO's protocol error handler
    /// would; otherwise the error goes on (and the connection with it).
    mutating func parserFailed() {
        // Bytes cut short by a close of ours (a request timed out, say) are nobody's request.
        guard !closing else { return }
        if !answering && forwardedInFlight == 0 && owner != .forwarded {
            closeAnswering(.badRequest("the request is not valid HTTP/1.1"))
        } else {
            actions.append(.passErrorOn)
        }
    }

    /// A graceful shutdown began: a running download may end within the grace period; otherwise Hummingbird
    /// closes the connection as it does for its own.
    mutating func shutdownRequested() {
        quiescing = true
        if answering || owner == .ours {
            actions.append(.scheduleGraceClose(in: timeouts.shutdownGrace))
        } else {
            actions.append(.passShutdownOn)
        }
    }

    /// The shutdown grace period ran out.
    mutating func graceExpired() {
        close()
    }

    /// The idle timer fired: close when idle for the whole timeout, else wait for the rest of it.
    mutating func idleTimerFired(now: NIODeadline) {
        guard isIdle else {
            actions.append(.scheduleIdleTimer(in: timeouts.idle))
            return
        }
        let idleFor = now - idleSince
        if idleFor >= timeouts.idle {
            close()
        } else {
            actions.append(.scheduleIdleTimer(in: timeouts.idle - idleFor))
        }
    }

    /// The request deadline fired.
    mutating func deadlinePassed(now: NIODeadline) {
        guard arriving else { return }
        if deadlinePolicy == .progress {
            // An upload's body: the timer is not moved on every part; it checks here how long the client has
            // been silent while the server was asking for bytes.
            guard let asked = readAskedSince else {
                actions.append(.scheduleDeadline(in: timeouts.request))
                return
            }
            let quiet = now - max(lastProgress, asked)
            if quiet < timeouts.request {
                actions.append(.scheduleDeadline(in: timeouts.request - quiet))
                return
            }
        }
        let decision = RequestDeadline.decide(
            writingResponse: answering || forwardedResponseStarted,
            earlierAnswersPending: forwardedInFlight > (owner == .forwarded ? 1 : 0),
            answered: owner == .ours || (owner == .forwarded && forwardedInFlight == 0))
        switch decision {
        case .closeAfterResponse:
            closeAfterResponse = true
        case .close:
            close()
        case .answerTimeoutAndClose:
            let seconds = timeouts.request.nanoseconds / 1_000_000_000
            closeAnswering(
                DepotError(
                    .requestTimeout, "the request did not arrive in full within \(seconds) seconds"))
        }
    }

    // MARK: request flow

    private mutating func close() {
        closing = true
        actions.append(.close)
    }

    private mutating func closeAnswering(_ error: DepotError) {
        closing = true
        actions.append(.answerErrorAndClose(error))
    }

    /// The request that was arriving is all there: its deadline stops.
    private mutating func requestEnded() {
        guard arriving else { return }
        arriving = false
        deadlinePolicy = .wholeRequest
        (uploadAwaitingKey, awaitsContinue) = (false, false)
        actions.append(.cancelDeadline)
    }

    private mutating func startDeadline() {
        guard !arriving else { return }
        arriving = true
        actions.append(.scheduleDeadline(in: timeouts.request))
    }

    /// Processes what arrived now, or queues it behind what waits.
    private mutating func arrived(_ arrival: Arrival) {
        guard !closing else { return }
        if pending.isEmpty && canProcess(arrival) {
            process(arrival)
        } else {
            pending.append(arrival)
        }
    }

    /// Whether an arrival may be processed now: a head waits behind an answer of ours being written, and a
    /// request of ours (or a refusal) waits behind routed answers still due (answers go out in request order).
    private func canProcess(_ arrival: Arrival) -> Bool {
        switch arrival {
        case .part(.head(let head)):
            if answering { return false }
            if forwardedInFlight > 0 && Self.claimed(head.uri) != nil { return false }
            return true
        case .part:
            return true
        case .recognized, .rejected:
            return !answering && forwardedInFlight == 0
        }
    }

    /// What this connection answers itself for a request target: a bundle, or the grant check.
    static func claimed(_ uri: String) -> Answer? {
        if let target = BundleRequestTarget(uri: uri) { return .bundle(target) }
        if GrantCheckResponder.isCheck(uri: uri) { return .grantCheck }
        return nil
    }

    /// Answers, refuses or hands on one arrival; returns whether a part was handed on.
    @discardableResult
    private mutating func process(_ arrival: Arrival) -> Bool {
        let part: HTTPServerRequestPart
        switch arrival {
        case .part(let arrived):
            part = arrived
        case .recognized(let request):
            answering = true
            answerKeepsAlive = request.keepAlive && !quiescing
            actions.append(.answerRecognized(request, keepAlive: answerKeepsAlive))
            return false
        case .rejected(let error):
            closeAnswering(error)
            return false
        }
        switch part {
        case .head(let head):
            if let answer = Self.claimed(head.uri) {
                owner = .ours
                answering = true
                answerKeepsAlive = head.isKeepAlive && !quiescing
                actions.append(.answer(answer, head, keepAlive: answerKeepsAlive))
                return false
            }
            owner = .forwarded
            forwardedInFlight += 1
            forwardedHeads.append(head.method == .HEAD)
        case .body:
            guard owner == .forwarded else { return false }
        case .end:
            defer { owner = .none }
            guard owner == .forwarded else { return false }
        }
        actions.append(.forward(part))
        return true
    }

    private mutating func drain(now: NIODeadline) {
        var forwarded = false
        while !closing, let arrival = pending.first, canProcess(arrival) {
            pending.removeFirst()
            forwarded = process(arrival) || forwarded
        }
        if forwarded { actions.append(.endReadBurst) }
        if pending.isEmpty && readHeldBack {
            readHeldBack = false
            noteReadAsked(now: now)
            actions.append(.read)
        }
        if isIdle { idleSince = now }
    }
}

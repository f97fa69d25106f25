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
///
/// Its state is three parts: the connection's ``Lifecycle``, the ``ResponseOrder`` of the answers due and the
/// ``RequestArrival`` of the request arriving, with the requests that wait behind an earlier answer and who owns
/// the request being processed.
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

    /// Who owns the request whose parts are being processed: nobody between requests (→ ours or forwarded, on a
    /// head), this connection (→ nobody, on its end), or Hummingbird (→ nobody, on its end).
    enum Owner { case none, ours, forwarded }

    let timeouts: Timeouts

    /// The actions queued and not yet handed out; the storage is kept across requests.
    var actions = ActionQueue(capacity: 8)
    /// How far the connection is from its end.
    var lifecycle = Lifecycle.open
    /// Which answer is being written, and which are due.
    var order = ResponseOrder.idle
    /// How the request arriving arrives: its deadline, an upload's progress and key, a read asked.
    var arriving = RequestArrival.between(readAsked: false)
    /// Who owns the request whose parts are being processed.
    var owner = Owner.none
    /// What waits for an earlier answer, oldest first.
    var pending = CircularBuffer<Arrival>()
    /// Whether a read was held back while something waits: it is asked once nothing does.
    var readHeldBack = false
    /// When the connection last became idle: the idle timer compares against it instead of being moved.
    var idleSince: NIODeadline

    /// A connection that opened at `now`.
    init(timeouts: Timeouts, now: NIODeadline) {
        self.timeouts = timeouts
        idleSince = now
    }

    /// The next action to carry out, oldest first.
    mutating func nextAction() -> Action? {
        actions.popFirst()
    }

    /// Whether nothing is being answered, waits, or is arriving.
    var isIdle: Bool {
        order.isIdle && owner == .none && pending.isEmpty
    }

    // MARK: connection

    /// The connection is up: the idle timer starts.
    mutating func connectionStarted(now: NIODeadline) {
        idleSince = now
        actions.append(.scheduleIdleTimer(in: timeouts.idle))
    }

    /// The connection is gone.
    mutating func connectionEnded() {
        lifecycle.close()
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
        arriving.readAsked(now: now())
        actions.append(.read)
    }

    /// The request recognizer asks the socket for more bytes itself, after a read it answered in full (the read
    /// then does not travel through the pipeline): true when a read may go now; when not, the pipeline's own
    /// read request follows and is held back by ``readRequested(now:)``.
    mutating func readRequestedDirectly(now: @autoclosure () -> NIODeadline) -> Bool {
        guard pending.isEmpty else { return false }
        arriving.readAsked(now: now())
        return true
    }

    // MARK: requests

    /// The first bytes of a request arrived (before the decoder made anything of them): its deadline starts.
    mutating func requestBytesArrived() {
        queue(arriving.bytesArrived())
    }

    /// The decoder made one part of a request.
    mutating func partReceived(_ part: HTTPServerRequestPart, now: NIODeadline) {
        // What is still in the decoder when the connection closes is nobody's request.
        guard lifecycle.isTakingRequests else { return }
        idleSince = now
        switch part {
        case .head(let head): queue(arriving.headArrived(head))
        case .body: arriving.bodyArrived(now: now)
        case .end: queue(arriving.requestEnded())
        }
        arrived(.part(part))
    }

    /// A plain bundle request was read straight from its bytes (see ``RequestHeadScanner``): its head and its
    /// end at once.
    mutating func requestRecognized(_ request: RecognizedBundleRequest, now: NIODeadline) {
        guard lifecycle.isTakingRequests else { return }
        idleSince = now
        queue(arriving.requestEnded())
        arrived(.recognized(request))
    }

    /// The upload route of the request arriving accepted its publisher key: its body's deadline now runs on progress,
    /// and a client waiting for `100 Continue` gets it (RFC 9110 §10.1.1), unless an earlier answer is still due.
    /// Only while that request is the only one handed on and its body is still arriving: a late word from an earlier
    /// request never reaches a later one. False when the connection is closing (its request deadline may have passed
    /// first): the route must not start on a body that will not come.
    mutating func uploadAuthorized(now: NIODeadline) -> Bool {
        guard lifecycle.isTakingRequests else { return false }
        guard owner == .forwarded, order.forwardedInFlight == 1, let awaitsContinue = arriving.keyAccepted(now: now)
        else { return true }
        if awaitsContinue && !order.isWriting { actions.append(.sendContinue) }
        return true
    }

    /// A request head broke the limits (414, 431): answered once every earlier answer went out, then the
    /// connection closes (nothing after the head is read).
    mutating func requestRejected(_ error: DepotError) {
        guard lifecycle.isTakingRequests else { return }
        queue(arriving.requestRefused())
        arrived(.rejected(error))
    }

    /// An answer of ours went out (`succeeded`) or failed; `inline` when that happened inside the write itself,
    /// with the processing that started the answer still running.
    mutating func answerWritten(succeeded: Bool, inline: Bool, now: NIODeadline) {
        let keepAlive = order.answerEnded()
        if succeeded { actions.append(.recordEvidence) }
        guard succeeded, keepAlive, lifecycle == .open else {
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
            // The route answers without reading the rest of the request (a body over the limit): the connection
            // ends with the answer rather than reading that body to its end.
            if closes { lifecycle.closeAfterResponse() }
            order.routedHeadWritten()
            return .passOn
        case .body:
            return order.isWritingToHead ? .dropBody : .passOn
        case .end:
            let toHead = order.routedEndWritten()
            let thenClose = lifecycle == .closing
            if !thenClose && order.forwardedInFlight == 0 { actions.append(.resumeLater) }
            // Closing once this end went out: nothing that arrives later is answered.
            if thenClose { lifecycle.close() }
            return .end(belowEncoder: toHead, thenClose: thenClose)
        }
    }

    /// Queues the deadline's change, if any.
    mutating func queue(_ deadline: RequestArrival.Deadline?) {
        switch deadline {
        case .start: actions.append(.scheduleDeadline(in: timeouts.request))
        case .stop: actions.append(.cancelDeadline)
        case .recheck(let delay): actions.append(.scheduleDeadline(in: delay))
        case nil: break
        }
    }
}

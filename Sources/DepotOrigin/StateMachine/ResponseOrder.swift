import NIOCore

/// Which answer a connection is writing, in HTTP/1.1's order of answers (after async-http-client's
/// `HTTPRequestStateMachine`): none, one of ours, or the routed answers of the requests handed on to Hummingbird.
///
/// Owned by ``BundleConnectionStateMachine``, which decides what may start; this only keeps which answer is due.
/// An answer of ours and routed answers never overlap: one of ours starts only when no routed answer is due, and
/// no request is handed on while one of ours is being written.
enum ResponseOrder {
    /// No answer is due.
    ///
    /// Goes to ``answering(keepAlive:)`` when an answer of ours starts, to ``forwarded(_:)`` when a request is
    /// handed on.
    case idle
    /// An answer of ours is being written; `keepAlive` when the connection stays open after it.
    ///
    /// Goes to ``idle`` once it went out or failed.
    case answering(keepAlive: Bool)
    /// Requests were handed on to Hummingbird and not all of their answers ended.
    ///
    /// Stays here while more are handed on and answers end; goes to ``idle`` when the last answer due ended.
    case forwarded(Forwarded)
    /// Only while ``forwarded(_:)`` is changed in place, so that its queue is not copied.
    case modifying

    /// The routed answers due.
    struct Forwarded {
        /// Requests handed on whose answer has not ended; at least one.
        var inFlight: Int
        /// For each request handed on whose answer has not begun, oldest first: whether it is a HEAD.
        var headsWaiting: CircularBuffer<Bool>
        /// Whether Hummingbird wrote the head of an answer and not its end, and whether that answer is to a HEAD.
        var writing: (started: Bool, toHead: Bool)
    }

    /// Whether nothing is due.
    var isIdle: Bool {
        if case .idle = self { return true }
        return false
    }

    /// Whether an answer of ours is being written.
    var isAnswering: Bool {
        if case .answering = self { return true }
        return false
    }

    /// How many routed answers are due.
    var forwardedInFlight: Int {
        if case .forwarded(let forwarded) = self { return forwarded.inFlight }
        return 0
    }

    /// Whether an answer is being written: one of ours, or a routed one whose head went out.
    var isWriting: Bool {
        switch self {
        case .answering: return true
        case .forwarded(let forwarded): return forwarded.writing.started
        case .idle, .modifying: return false
        }
    }

    /// Whether the routed answer being written answers a HEAD (its body is not sent).
    var isWritingToHead: Bool {
        if case .forwarded(let forwarded) = self { return forwarded.writing.toHead }
        return false
    }

    /// An answer of ours starts (from ``idle``).
    mutating func startAnswer(keepAlive: Bool) {
        self = .answering(keepAlive: keepAlive)
    }

    /// The answer of ours went out or failed: whether the connection was to stay open after it.
    mutating func answerEnded() -> Bool {
        guard case .answering(let keepAlive) = self else { return false }
        self = .idle
        return keepAlive
    }

    /// A request was handed on (from ``idle`` or ``forwarded(_:)``); `isHead` when it is a HEAD.
    mutating func forward(isHead: Bool) {
        if case .idle = self {
            var headsWaiting = CircularBuffer<Bool>(initialCapacity: 4)
            headsWaiting.append(isHead)
            self = .forwarded(Forwarded(inFlight: 1, headsWaiting: headsWaiting, writing: (false, false)))
            return
        }
        modifyForwarded { forwarded in
            forwarded.inFlight += 1
            forwarded.headsWaiting.append(isHead)
        }
    }

    /// Hummingbird wrote the head of a final answer: the oldest request waiting is answered now.
    mutating func routedHeadWritten() {
        modifyForwarded { forwarded in
            forwarded.writing = (true, forwarded.headsWaiting.popFirst() ?? false)
        }
    }

    /// Hummingbird wrote the end of an answer: whether it answered a HEAD.
    mutating func routedEndWritten() -> Bool {
        var toHead = false
        var ended = false
        modifyForwarded { forwarded in
            toHead = forwarded.writing.toHead
            forwarded.writing = (false, false)
            forwarded.inFlight -= 1
            ended = forwarded.inFlight == 0
        }
        if ended { self = .idle }
        return toHead
    }

    /// Changes the routed answers due in place (nothing is due otherwise).
    private mutating func modifyForwarded(_ change: (inout Forwarded) -> Void) {
        guard case .forwarded(var forwarded) = self else { return }
        // Without a second reference, the queue is changed where it is rather than copied.
        self = .modifying
        change(&forwarded)
        self = .forwarded(forwarded)
    }
}

/// How far a connection is from its end (after NIO's `HTTPServerPipelineHandler` lifecycle).
extension BundleConnectionStateMachine {
    /// The life of the connection, from open to closed; it only moves forward.
    enum Lifecycle: Equatable {
        /// Answers keep the connection open when their request asks for it.
        ///
        /// Goes to ``quiescing`` when a graceful shutdown begins, to ``closing`` when a request's deadline passes
        /// while an answer is being written or a routed answer says `Connection: close`, and to ``closed`` when the
        /// connection is closed (an idle close, an answer that closes, Depot's 400 or 408, the peer gone).
        case open
        /// A graceful shutdown began: an answer starting now says `Connection: close`, and the connection closes
        /// once the answer being written ends.
        ///
        /// Goes to ``closing`` as ``open`` does, and to ``closed`` once the answer ended or the grace ran out.
        case quiescing
        /// The connection closes once the answer being written ends; requests that arrive meanwhile are still
        /// handed on, and none of ours starts (it would wait behind that answer).
        ///
        /// Goes to ``closed`` when that answer ended, or as ``open`` does; a graceful shutdown leaves it here.
        case closing
        /// The connection is closed or being closed: nothing more arrives, waits or is answered. The last state.
        case closed

        /// Whether an answer starting now may keep the connection open.
        var keepsAlive: Bool { self == .open }

        /// Whether requests are still taken in.
        var isTakingRequests: Bool { self != .closed }

        /// A graceful shutdown began.
        mutating func quiesce() {
            if self == .open { self = .quiescing }
        }

        /// The connection is to close once the answer being written ends.
        mutating func closeAfterResponse() {
            if self == .open || self == .quiescing { self = .closing }
        }

        /// The connection is being closed.
        mutating func close() {
            self = .closed
        }
    }
}

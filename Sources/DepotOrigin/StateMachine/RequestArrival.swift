import NIOCore
import NIOHTTP1

/// How the request now arriving on a connection arrives (after async-http-client's `HTTPRequestStateMachine`): its
/// deadline (see ``RequestDeadline``), an upload body's progress, whether a read asked of the socket brought nothing
/// yet, the publisher key an upload waits for, and its `100 Continue`.
///
/// Owned by ``BundleConnectionStateMachine``. It follows the bytes as they arrive, ahead of the answers: a request
/// may have arrived in full while it still waits behind an earlier answer. Each change that moves the deadline
/// returns it as one ``Deadline`` for the machine to queue.
enum RequestArrival {
    /// No request is arriving: no deadline runs. `readAsked`: a read was asked of the socket and nothing came since.
    ///
    /// Goes to ``arriving(upload:readAsked:)`` when the first bytes of a request or its head arrive.
    case between(readAsked: Bool)
    /// A request is arriving, on the whole-request deadline started by its first bytes. `upload`: the request is
    /// a body for the upload routes whose key has not been accepted yet (and whether it waits for `100 Continue`).
    ///
    /// Goes to ``uploading(lastProgress:readAskedSince:)`` when the upload's route accepted its key, to
    /// ``between(readAsked:)`` when the request's end arrived (or it was read whole, or refused).
    case arriving(upload: UploadKey?, readAsked: Bool)
    /// An upload's body is arriving, its key accepted: it is timed from its last progress, and only while a read
    /// is asked (a stalled upload is the server's doing while no read is). `readAskedSince`: since when a read asked
    /// of the socket has brought nothing; nil while none is asked.
    ///
    /// Goes to ``between(readAsked:)`` when the body's end arrived.
    case uploading(lastProgress: NIODeadline, readAskedSince: NIODeadline?)

    /// An upload waiting for its route to accept its publisher key.
    struct UploadKey {
        /// Whether the client waits for `100 Continue` before sending the body (RFC 9110 §10.1.1).
        var awaitsContinue: Bool
    }

    /// What a change does to the request's deadline.
    enum Deadline: Equatable {
        /// The deadline starts: it fires after the request timeout.
        case start
        /// The deadline stops: the request arrived.
        case stop
        /// An upload that made progress is looked at again this much later.
        case recheck(in: TimeAmount)
    }

    /// What a passed deadline means for the request arriving.
    enum Expiry: Equatable {
        /// Nothing is arriving, or the upload made progress: a deadline, if any, is given.
        case notDue(Deadline?)
        /// The request did not arrive in time.
        case due
    }

    /// Whether a request is arriving.
    var isArriving: Bool {
        if case .between = self { return false }
        return true
    }

    /// The first bytes of a request arrived (before the decoder made anything of them).
    mutating func bytesArrived() -> Deadline? {
        guard case .between(let readAsked) = self else { return nil }
        self = .arriving(upload: nil, readAsked: readAsked)
        return .start
    }

    /// A read was asked of the socket; the clock is read only for an upload timed on progress.
    mutating func readAsked(now: @autoclosure () -> NIODeadline) {
        switch self {
        case .between: self = .between(readAsked: true)
        case .arriving(let upload, _): self = .arriving(upload: upload, readAsked: true)
        case .uploading(let lastProgress, nil): self = .uploading(lastProgress: lastProgress, readAskedSince: now())
        case .uploading: break
        }
    }

    /// The decoder made a request head: every request starts on the whole-request deadline, an upload's body earning
    /// the progress policy only once its key was accepted, so that a client without one cannot hold the connection
    /// by trickling bytes.
    mutating func headArrived(_ head: HTTPRequestHead) -> Deadline? {
        let deadline: Deadline? = isArriving ? nil : .start
        let upload =
            RequestDeadline.policy(method: head.method, uri: head.uri) == .progress
            ? UploadKey(awaitsContinue: RequestDeadline.sendsContinue(head, earlierAnswersPending: false)) : nil
        self = .arriving(upload: upload, readAsked: false)
        return deadline
    }

    /// The decoder made a part of a body: an upload timed on progress made some.
    mutating func bodyArrived(now: NIODeadline) {
        switch self {
        case .between: self = .between(readAsked: false)
        case .arriving(let upload, _): self = .arriving(upload: upload, readAsked: false)
        case .uploading: self = .uploading(lastProgress: now, readAskedSince: nil)
        }
    }

    /// The request arrived in full (its end, or all of it read at once).
    mutating func requestEnded() -> Deadline? {
        defer { self = .between(readAsked: false) }
        return isArriving ? .stop : nil
    }

    /// The request's head was refused before it was read: it ends, and a read asked stays asked.
    mutating func requestRefused() -> Deadline? {
        switch self {
        case .between:
            return nil
        case .arriving(_, let readAsked):
            self = .between(readAsked: readAsked)
        case .uploading(_, let readAskedSince):
            self = .between(readAsked: readAskedSince != nil)
        }
        return .stop
    }

    /// The upload route accepted the key of the request arriving: its body is timed on progress from `now` (and
    /// from then for a read already asked). Whether the client waits for `100 Continue`; nil when the request
    /// arriving is not an upload waiting for its key.
    mutating func keyAccepted(now: NIODeadline) -> Bool? {
        guard case .arriving(let upload?, let readAsked) = self else { return nil }
        self = .uploading(lastProgress: now, readAskedSince: readAsked ? now : nil)
        return upload.awaitsContinue
    }

    /// The deadline fired at `now`: whether the request arriving is late. An upload timed on progress is late only
    /// once the client has been silent for `timeout` while a read was asked.
    func deadlinePassed(now: NIODeadline, timeout: TimeAmount) -> Expiry {
        switch self {
        case .between:
            return .notDue(nil)
        case .arriving:
            return .due
        case .uploading(_, nil):
            // The timer is not moved on every part: it checks here how long the client has been silent while the
            // server was asking for bytes.
            return .notDue(.recheck(in: timeout))
        case .uploading(let lastProgress, let asked?):
            let quiet = now - max(lastProgress, asked)
            return quiet < timeout ? .notDue(.recheck(in: timeout - quiet)) : .due
        }
    }
}

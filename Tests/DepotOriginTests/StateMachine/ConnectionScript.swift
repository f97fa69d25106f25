import DepotAPI
import DepotCore
@testable import DepotOrigin
import NIOCore
import NIOHTTP1

/// One step of a scripted connection for `BundleConnectionStateMachine`, on a clock the script moves.
enum ConnectionStep: CustomStringConvertible {
    /// The clock moves to this many seconds after the connection opened.
    case at(Int64)
    case start
    case bytes
    case head(HTTPMethod, String, [(String, String)] = [])
    case body
    case end
    /// A plain bundle GET read straight from the bytes.
    case recognized(String)
    /// A head over the limits: 414 or 431.
    case rejected(Int)
    case read
    /// The request recognizer asks to read itself, after a read it answered in full; logs whether it may.
    case directRead
    /// An answer of ours finished writing.
    case answered(succeeded: Bool, inline: Bool)
    case resume
    case responseHead(Int, closes: Bool = false)
    case responseBody
    case responseEnd
    case shutdown
    case parserError
    case graceOver
    case idleFired
    case deadlineFired
    /// The upload route accepted the arriving request's publisher key.
    case keyAccepted
    case gone

    var description: String {
        switch self {
        case .head(let method, let uri, _): return "head \(method) \(uri)"
        default: return String(describing: self as Any)
        }
    }
}

/// Runs a script against a fresh machine and returns every action and write decision it produced, in order,
/// as short text (an action's payload reduced to what a test compares).
func runConnectionScript(
    _ steps: [ConnectionStep], idle: Int64 = 60, request: Int64 = 30, grace: Int64 = 10
) -> [String] {
    let origin = NIODeadline.uptimeNanoseconds(1_000_000_000_000)
    var now = origin
    var machine = BundleConnectionStateMachine(
        timeouts: .init(idle: .seconds(idle), request: .seconds(request), shutdownGrace: .seconds(grace)), now: now)
    var log: [String] = []
    for step in steps {
        switch step {
        case .at(let seconds): now = origin + .seconds(seconds)
        case .start: machine.connectionStarted(now: now)
        case .bytes: machine.requestBytesArrived()
        case .head(let method, let uri, let fields):
            var head = HTTPRequestHead(version: .http1_1, method: method, uri: uri)
            for (name, value) in fields { head.headers.add(name: name, value: value) }
            machine.partReceived(.head(head), now: now)
        case .body: machine.partReceived(.body(ByteBuffer(string: "x")), now: now)
        case .end: machine.partReceived(.end(nil), now: now)
        case .recognized(let uri):
            let request = RecognizedBundleRequest(
                isHead: false, target: BundleRequestTarget(uri: uri)!, keepAlive: true, bearerToken: nil, conditions: nil)
            machine.requestRecognized(request, now: now)
        case .rejected(let status):
            let limits = RequestHeadLimits.defaults
            machine.requestRejected(status == 414 ? limits.targetTooLong : limits.headTooLarge)
        case .read: machine.readRequested(now: now)
        case .directRead: log.append(machine.readRequestedDirectly(now: now) ? "read directly" : "no direct read")
        case .answered(let succeeded, let inline): machine.answerWritten(succeeded: succeeded, inline: inline, now: now)
        case .resume: machine.resume(now: now)
        case .responseHead(let status, let closes):
            log.append("write \(machine.responseWritten(.head(status: status, closes: closes)))")
        case .responseBody: log.append("write \(machine.responseWritten(.body))")
        case .responseEnd: log.append("write \(machine.responseWritten(.end))")
        case .shutdown: machine.shutdownRequested()
        case .parserError: machine.parserFailed()
        case .graceOver: machine.graceExpired()
        case .idleFired: machine.idleTimerFired(now: now)
        case .deadlineFired: machine.deadlinePassed(now: now)
        case .keyAccepted:
            if !machine.uploadAuthorized(now: now) { log.append("key refused: closing") }
        case .gone: machine.connectionEnded()
        }
        while let action = machine.nextAction() { log.append(describe(action)) }
    }
    return log
}

private func seconds(_ amount: TimeAmount) -> String {
    amount.nanoseconds % 1_000_000_000 == 0
        ? "\(amount.nanoseconds / 1_000_000_000)s" : "\(Double(amount.nanoseconds) / 1e9)s"
}

private func describe(_ action: BundleConnectionStateMachine.Action) -> String {
    switch action {
    case .forward(.head(let head)): return "forward \(head.method) \(head.uri)"
    case .forward(.body): return "forward body"
    case .forward(.end): return "forward end"
    case .endReadBurst: return "read-complete"
    case .answer(let kind, let head, let keepAlive):
        let what: String
        switch kind {
        case .bundle(let target): what = "bundle \(target.digest)"
        case .grantCheck: what = "check"
        }
        return "answer \(what) \(head.method)" + (keepAlive ? "" : " then close")
    case .answerRecognized(let request, let keepAlive):
        return "answer bundle \(request.target.digest) \(request.isHead ? "HEAD" : "GET") (read from bytes)"
            + (keepAlive ? "" : " then close")
    case .sendContinue: return "100-continue"
    case .recordEvidence: return "record"
    case .read: return "read"
    case .resumeLater: return "resume later"
    case .answerErrorAndClose(let error): return "answer \(error.status) and close"
    case .passShutdownOn: return "pass shutdown on"
    case .passErrorOn: return "pass error on"
    case .close: return "close"
    case .scheduleIdleTimer(let delay): return "idle timer \(seconds(delay))"
    case .scheduleDeadline(let delay): return "deadline \(seconds(delay))"
    case .cancelDeadline: return "cancel deadline"
    case .scheduleGraceClose(let delay): return "grace \(seconds(delay))"
    case .cancelGraceClose: return "cancel grace"
    case .cancelTimers: return "cancel timers"
    }
}

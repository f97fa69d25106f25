import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A step of the purchase flow, as the crash clients go through it.
enum FlowStage: String, CaseIterable, Sendable {
    case redeem
    case download
    case finish
}

/// Where a round of the kill -9 harness kills the server: at a point drawn from what the clients have done
/// in that round, never from a clock, so the same rounds test the same things on a fast or a loaded machine.
enum KillPoint: Sendable, CustomStringConvertible {
    /// Right after the round's `count`-th answered request.
    case afterAnswers(Int)
    /// Right after the round's `count`-th request of `stage` was sent, before its answer was read.
    case during(FlowStage, Int)
    /// Right after the answer to the round's `count`-th request of `stage` was read.
    case after(FlowStage, Int)

    /// The kinds a harness cycles through, so every run of five rounds or more kills in the middle of every
    /// stage and after completed finishes.
    static func drawn(round: Int, random: UInt64) -> KillPoint {
        let count = 1 + Int(random % 8)
        switch round % 5 {
        case 0: return .afterAnswers(4 + Int(random % 16))
        case 1: return .during(.redeem, count)
        case 2: return .during(.download, count)
        case 3: return .during(.finish, count)
        default: return .after(.finish, count)
        }
    }

    var description: String {
        switch self {
        case .afterAnswers(let count): "after \(count) answers"
        case .during(let stage, let count): "during \(stage.rawValue) #\(count)"
        case .after(let stage, let count): "after \(stage.rawValue) answer #\(count)"
        }
    }
}

/// Counts what the clients of one round send and read, and kills the server (SIGKILL) the moment the round's
/// `KillPoint` is reached, from the client thread that reached it, so the kill lands exactly there.
final class KillSwitch: Sendable {
    private struct State {
        var sent: [FlowStage: Int] = [:]
        var answered: [FlowStage: Int] = [:]
        var answers = 0
        var fired = false
        /// The stages with a request sent and not yet answered when the kill fired.
        var inFlight: [FlowStage: Int] = [:]
        var outstanding: [FlowStage: Int] = [:]
    }

    let point: KillPoint
    private let pid: Int32
    private let state = Mutex(State())

    init(point: KillPoint, pid: Int32) {
        self.point = point
        self.pid = pid
    }

    /// A client sent a request of `stage`.
    func sent(_ stage: FlowStage) {
        state.withLock { state in
            guard !state.fired else { return }
            state.sent[stage, default: 0] += 1
            state.outstanding[stage, default: 0] += 1
            if case .during(let target, let count) = point, target == stage, state.sent[stage] == count {
                fire(&state)
            }
        }
    }

    /// A client read the answer to a request of `stage`.
    func answered(_ stage: FlowStage) {
        state.withLock { state in
            guard !state.fired else { return }
            state.answers += 1
            state.answered[stage, default: 0] += 1
            state.outstanding[stage, default: 0] -= 1
            switch point {
            case .afterAnswers(let count) where state.answers == count: fire(&state)
            case .after(let target, let count) where target == stage && state.answered[stage] == count: fire(&state)
            default: break
            }
        }
    }

    /// Kills the server now if the point was not reached (the harness's time bound, a fallback only).
    /// Returns true when it was this call that killed.
    func fireNow() -> Bool {
        state.withLock { state in
            guard !state.fired else { return false }
            fire(&state)
            return true
        }
    }

    /// Whether the server was killed.
    var hasFired: Bool { state.withLock { $0.fired } }

    /// Requests of each stage that were on their way when the server was killed.
    var inFlightAtKill: [FlowStage: Int] { state.withLock { $0.inFlight } }

    private func fire(_ state: inout State) {
        state.fired = true
        state.inFlight = state.outstanding.filter { $0.value > 0 }
        _ = Glibc.kill(pid, SIGKILL)
    }
}

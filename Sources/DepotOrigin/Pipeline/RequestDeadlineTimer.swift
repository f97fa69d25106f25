import NIOCore

/// The timer behind a connection's request deadline, which the state machine starts and stops once per request
/// (``BundleConnectionStateMachine/Action/scheduleDeadline(in:)``, ``BundleConnectionStateMachine/Action/cancelDeadline``).
///
/// It stays armed across requests, so that a request costs no timer of its own: stopping the deadline only clears
/// when it is due, and a deadline due later than the armed timer fires is looked at again then. Bound to the
/// connection's event loop; its callbacks are given once, when the connection's handler is added.
final class RequestDeadlineTimer {
    /// The connection's event loop, whether the connection is still up, and who hears of a deadline that passed.
    private var loop: NIOIsolatedEventLoop?
    private var isLive: () -> Bool = { false }
    private var passed: (NIODeadline) -> Void = { _ in }
    /// The armed timer, and when it fires.
    private var task: Scheduled<Void>?
    private var firesAt = NIODeadline.distantFuture
    /// When the machine's deadline is due; nil while none runs.
    private var due: NIODeadline?

    /// A timer with nothing armed, and nobody to report to until ``bind(to:isLive:passed:)``.
    init() {}

    /// Binds the timer to its event loop (call on it): `passed` hears of a deadline that passed, with the time,
    /// while `isLive` says the connection is up.
    func bind(to loop: any EventLoop, isLive: @escaping () -> Bool, passed: @escaping (NIODeadline) -> Void) {
        self.loop = loop.assumeIsolated()
        (self.isLive, self.passed) = (isLive, passed)
    }

    /// The deadline is due `delay` after `now`.
    func schedule(in delay: TimeAmount, now: NIODeadline) {
        let at = now + delay
        due = at
        guard task == nil || firesAt > at else { return }
        task?.cancel()
        arm(at: at)
    }

    /// The deadline stops (the request arrived); the timer stays armed for the next one.
    func stop() {
        due = nil
    }

    /// The connection is gone: the timer is cancelled.
    func cancel() {
        task?.cancel()
        (task, due) = (nil, nil)
    }

    /// Arms the timer: when it fires, a deadline still due later re-arms it, one due now is reported.
    private func arm(at time: NIODeadline) {
        guard let loop else { return }
        firesAt = time
        task = loop.scheduleTask(deadline: time) {
            self.task = nil
            guard self.isLive(), let due = self.due else { return }
            let now = loop.nonisolated().now
            if due > now {
                self.arm(at: due)
                return
            }
            self.due = nil
            self.passed(now)
        }
    }
}

/// Bound to one event loop.
@available(*, unavailable)
extension RequestDeadlineTimer: Sendable {}

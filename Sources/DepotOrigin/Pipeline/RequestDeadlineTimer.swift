import NIOCore

/// The timer behind a connection's request deadline, which the state machine starts and stops once per request
/// (``BundleConnectionStateMachine/Action/scheduleDeadline(in:)``, ``BundleConnectionStateMachine/Action/cancelDeadline``).
///
/// It stays armed across requests, so that a request costs no timer of its own: stopping the deadline only clears
/// when it is due, and a deadline due later than the armed timer fires is looked at again then. Bound to the
/// connection's event loop. It keeps no reference to its listener while nothing is armed (and never a weak one,
/// which would make every retain of the listener take the slow path).
final class RequestDeadlineTimer {
    /// The armed timer, and when it fires.
    private var task: Scheduled<Void>?
    private var firesAt = NIODeadline.distantFuture
    /// When the machine's deadline is due; nil while none runs.
    private var due: NIODeadline?

    /// A timer with nothing armed.
    init() {}

    /// The deadline is due `delay` after `now`: `listener` hears of it then, on `loop` (read only when the timer
    /// is armed), unless it was stopped before.
    func schedule(
        in delay: TimeAmount, now: NIODeadline, loop: @autoclosure () -> any EventLoop,
        listener: some RequestDeadlineListener
    ) {
        let at = now + delay
        due = at
        guard task == nil || firesAt > at else { return }
        task?.cancel()
        arm(at: at, loop: loop().assumeIsolated(), listener: listener)
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
    private func arm(at time: NIODeadline, loop: NIOIsolatedEventLoop, listener: some RequestDeadlineListener) {
        firesAt = time
        task = loop.scheduleTask(deadline: time) {
            self.task = nil
            guard listener.connectionIsUp, let due = self.due else { return }
            let now = loop.nonisolated().now
            if due > now {
                self.arm(at: due, loop: loop, listener: listener)
                return
            }
            self.due = nil
            listener.requestDeadlinePassed(now: now)
        }
    }
}

/// Bound to one event loop.
@available(*, unavailable)
extension RequestDeadlineTimer: Sendable {}

/// Who hears of a request deadline that passed.
protocol RequestDeadlineListener: AnyObject {
    /// Whether the connection is still up (a deadline of a connection gone is not reported).
    var connectionIsUp: Bool { get }
    /// The deadline passed at `now`.
    func requestDeadlinePassed(now: NIODeadline)
}

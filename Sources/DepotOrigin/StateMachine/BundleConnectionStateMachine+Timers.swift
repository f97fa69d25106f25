import DepotAPI
import NIOCore

/// Failures, a graceful shutdown and the timers of the connection's state machine.
extension BundleConnectionStateMachine {
    /// The decoder cannot read the bytes: 400 and close when no answer is due, as NIO's protocol error handler
    /// would; otherwise the error goes on (and the connection with it).
    mutating func parserFailed() {
        // Bytes cut short by a close of ours (a request timed out, say) are nobody's request.
        guard lifecycle.isTakingRequests else { return }
        if order.isIdle && owner != .forwarded {
            closeAnswering(.badRequest("the request is not valid HTTP/1.1"))
        } else {
            actions.append(.passErrorOn)
        }
    }

    /// A graceful shutdown began: a running download may end within the grace period; otherwise Hummingbird
    /// closes the connection as it does for its own.
    mutating func shutdownRequested() {
        lifecycle.quiesce()
        if order.isAnswering || owner == .ours {
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
        switch arriving.deadlinePassed(now: now, timeout: timeouts.request) {
        case .notDue(let deadline):
            queue(deadline)
            return
        case .due:
            break
        }
        let inFlight = order.forwardedInFlight
        let decision = RequestDeadline.decide(
            writingResponse: order.isWriting, earlierAnswersPending: inFlight > (owner == .forwarded ? 1 : 0),
            answered: owner == .ours || (owner == .forwarded && inFlight == 0))
        switch decision {
        case .closeAfterResponse:
            lifecycle.closeAfterResponse()
        case .close:
            close()
        case .answerTimeoutAndClose:
            let seconds = timeouts.request.nanoseconds / 1_000_000_000
            closeAnswering(
                DepotError(
                    .requestTimeout, "the request did not arrive in full within \(seconds) seconds"))
        }
    }

    /// The connection closes.
    mutating func close() {
        lifecycle.close()
        actions.append(.close)
    }

    /// Depot's error answer, then the connection closes.
    mutating func closeAnswering(_ error: DepotError) {
        lifecycle.close()
        actions.append(.answerErrorAndClose(error))
    }
}

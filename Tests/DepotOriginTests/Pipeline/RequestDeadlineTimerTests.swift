import NIOCore
import NIOEmbedded
import Testing

@testable import DepotOrigin

/// The request deadline's timer stays armed across requests and reports a deadline only once it is really due.
@Suite("The request deadline's timer, on an embedded event loop")
struct RequestDeadlineTimerTests {
    /// A listener of a timer on an embedded loop, and the times it heard of.
    final class Probe: RequestDeadlineListener {
        let loop = EmbeddedEventLoop()
        let timer = RequestDeadlineTimer()
        var reported: [NIODeadline] = []
        var connectionIsUp = true

        func requestDeadlinePassed(now: NIODeadline) { reported.append(now) }

        func schedule(_ seconds: Int64) { timer.schedule(in: .seconds(seconds), now: loop.now, loop: loop, listener: self) }
        func advance(_ seconds: Int64) { loop.advanceTime(by: .seconds(seconds)) }
        /// Reports so far, in seconds from the start.
        func seconds(since start: NIODeadline) -> [Int64] {
            reported.map { ($0 - start).nanoseconds / 1_000_000_000 }
        }
    }

    @Test func aDeadlineDueIsReportedAtItsTime() {
        let probe = Probe()
        let start = probe.loop.now
        probe.schedule(30)
        probe.advance(29)
        #expect(probe.reported.isEmpty)
        probe.advance(1)
        #expect(probe.seconds(since: start) == [30])
    }

    @Test func aStoppedDeadlineIsNotReported() {
        let probe = Probe()
        probe.schedule(30)
        probe.timer.stop()
        probe.advance(60)
        #expect(probe.reported.isEmpty)
    }

    @Test func aLaterDeadlineReusesTheArmedTimerAndIsReportedAtItsOwnTime() {
        let probe = Probe()
        let start = probe.loop.now
        probe.schedule(30)
        probe.timer.stop()
        probe.advance(10)
        // Due at 40: the timer armed for 30 fires first, finds it not due, and looks again at 40.
        probe.schedule(30)
        probe.advance(20)
        #expect(probe.reported.isEmpty)
        probe.advance(10)
        #expect(probe.seconds(since: start) == [40])
    }

    @Test func anEarlierDeadlineRearmsTheTimer() {
        let probe = Probe()
        let start = probe.loop.now
        probe.schedule(30)
        probe.schedule(5)
        probe.advance(5)
        #expect(probe.seconds(since: start) == [5])
        probe.advance(30)
        #expect(probe.seconds(since: start) == [5])
    }

    @Test func nothingIsReportedOnceTheConnectionIsDownOrTheTimerCancelled() {
        let down = Probe()
        down.schedule(30)
        down.connectionIsUp = false
        down.advance(30)
        #expect(down.reported.isEmpty)

        let cancelled = Probe()
        cancelled.schedule(30)
        cancelled.timer.cancel()
        cancelled.advance(30)
        #expect(cancelled.reported.isEmpty)
    }
}

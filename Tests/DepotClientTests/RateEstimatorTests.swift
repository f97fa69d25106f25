import Testing

@testable import DepotClient

/// The rate and time remaining a download reports, from samples at known times.
@Suite struct RateEstimatorTests {
    @Test func aSteadyTransferGivesItsRateAndTheTimeLeft() throws {
        var estimator = RateEstimator(window: 5)
        #expect(estimator.bytesPerSecond == nil)
        for second in 0...10 { estimator.record(bytes: Int64(second) * 1000, at: Double(second)) }
        let rate = try #require(estimator.bytesPerSecond)
        #expect(abs(rate - 1000) < 0.001)
        let left = try #require(estimator.timeRemaining(expected: 20_000))
        #expect(abs(left - 10) < 0.001)
    }

    @Test func onlyTheWindowCounts() throws {
        var estimator = RateEstimator(window: 2)
        // Slow for ten seconds, then fast.
        for second in 0...10 { estimator.record(bytes: Int64(second) * 10, at: Double(second)) }
        for step in 1...4 { estimator.record(bytes: 100 + Int64(step) * 5000, at: 10 + Double(step) * 0.5) }
        let rate = try #require(estimator.bytesPerSecond)
        #expect(rate > 5000, "\(rate)")
    }

    @Test func aRestartFromZeroForgetsTheOldSamples() {
        var estimator = RateEstimator()
        estimator.record(bytes: 0, at: 0)
        estimator.record(bytes: 5000, at: 1)
        estimator.record(bytes: 0, at: 1.05)
        #expect(estimator.bytesPerSecond == nil)
        #expect(estimator.timeRemaining(expected: 10) == nil)
    }
}

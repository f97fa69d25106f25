import DepotClient
import Testing

/// The pauses between a download's attempts: doubling from the first, never past the cap.
@Suite struct RetryPolicyTests {
    @Test func theDelayDoublesAfterEachFailureUpToItsCap() {
        let policy = RetryPolicy(attempts: 5, delaySeconds: 0.5, maxDelaySeconds: 30)
        #expect((1...9).map { policy.delay(afterFailures: $0) } == [0.5, 1, 2, 4, 8, 16, 30, 30, 30])
        #expect(policy.delay(afterFailures: 0) == 0.5)
        #expect(policy.delay(afterFailures: Int.max) == 30)
    }

    @Test func unusableSettingsGiveAFiniteDelay() {
        #expect(RetryPolicy(delaySeconds: 0).delay(afterFailures: Int.max) == 0)
        #expect(RetryPolicy(delaySeconds: -1).delay(afterFailures: 3) == 0)
        #expect(RetryPolicy(delaySeconds: .infinity).delay(afterFailures: 3) == 0)
        #expect(RetryPolicy(delaySeconds: 10, maxDelaySeconds: 2).delay(afterFailures: 1) == 2)
        #expect(RetryPolicy(delaySeconds: 1, maxDelaySeconds: .nan).delay(afterFailures: 4) == 0)
    }
}

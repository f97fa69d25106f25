import DepotCore
import Testing

@Suite("Irregular-activity policy")
struct IrregularActivityPolicyTests {
    let policy = IrregularActivityPolicy(windowSeconds: 3600, maxAccountTokens: 2, maxClientAddresses: 3, slowDownSeconds: 60)

    @Test func withinTheThresholdsARedemptionIsRegular() {
        #expect(policy.verdict(accounts: 2, addresses: 3, previousAttempt: 999, now: 1000) == .regular)
    }

    @Test func overAThresholdItIsFlaggedAndSlowedDownOnlyWhenTooSoon() {
        #expect(policy.verdict(accounts: 3, addresses: 1, previousAttempt: nil, now: 1000) == .flagged)
        #expect(policy.verdict(accounts: 1, addresses: 4, previousAttempt: 900, now: 1000) == .flagged)
        #expect(policy.verdict(accounts: 3, addresses: 1, previousAttempt: 990, now: 1000) == .slowedDown(retryAfterSeconds: 50))
        #expect(policy.verdict(accounts: 3, addresses: 1, previousAttempt: 941, now: 1000) == .slowedDown(retryAfterSeconds: 1))
        #expect(policy.verdict(accounts: 3, addresses: 1, previousAttempt: 940, now: 1000) == .flagged)
    }
}

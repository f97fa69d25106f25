import DepotCore

@testable import DepotLedger

extension Ledger {
    /// One redemption of sample transaction `id` from `client`, counting activity since `since`.
    @discardableResult
    func attempt(
        _ id: String, token: String?, client: String, now: Int64, since: Int64 = 0
    ) async throws -> RecordedRedemption {
        try await recordRedemption(
            Sample.transaction(id), productType: nil, appAccountToken: token, client: client, activitySince: since, now: now)
    }
}

import DepotCore
import Testing

@testable import DepotLedger

/// The ledger says what failed: an engine's refusal becomes a typed code with the engine's own code and its
/// cause, on every engine: a broken constraint is `constraint` (SQLSTATE 23505, SQLITE_CONSTRAINT), and the rest
/// keeps the operation's name in the message.
@Suite struct LedgerErrorCodeTests {
    @Test(arguments: Engine.tested)
    func aBrokenConstraintIsTypedWithTheEnginesCode(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            let sql = try #require(ledger as? any SQLLedger)
            let insert: SQL = "INSERT INTO refund_reviews (transaction_id, pending_refund_token, requested_at) VALUES ('GPA.9', 't', 1)"
            _ = try await sql.transaction(.write, "the first review") { session in try await session.execute(insert) }
            do throws(LedgerError) {
                _ = try await sql.transaction(.write, "the same review again") { session in try await session.execute(insert) }
                Issue.record("the duplicate row was taken")
            } catch {
                #expect(error.code == .constraint, "\(error)")
                #expect(error.message.contains("the same review again"))
                #expect(error.cause != nil)
                switch engine {
                case .postgres: #expect(error.engineCode == "23505", "\(String(describing: error.engineCode))")
                case .sqlite: #expect(error.engineCode?.contains("SQLITE_CONSTRAINT") == true, "\(String(describing: error.engineCode))")
                }
                #expect(!error.isUnavailable)
            }
        }
    }
}

@testable import DepotServerTestSupport
import DepotSettings
import Foundation
import Testing

/// `ledger.sqliteBusyTimeoutSeconds` in `depot.json`: its default, a value read, and values out of range refused by name.
@Suite("Configuration: the SQLite ledger's wait for a write lock")
struct LedgerConfigurationTests {
    @Test func theDefaultIsTenSecondsAndAValueIsRead() throws {
        #expect(try LiveServer.loadConfiguration("").ledgerBusyTimeoutSeconds == 10)
        #expect(try LiveServer.loadConfiguration("").ledgerWaitSeconds == 5)
        #expect(try LiveServer.loadConfiguration("\"ledger\": {\"waitSeconds\": 30}").ledgerWaitSeconds == 30)
        #expect(throws: ConfigurationError.self) { _ = try LiveServer.loadConfiguration("\"ledger\": {\"waitSeconds\": 0}") }
        #expect(try LiveServer.loadConfiguration("\"ledger\": {\"sqliteBusyTimeoutSeconds\": 120}").ledgerBusyTimeoutSeconds == 120)
    }

    @Test(arguments: ["0", "-1", "3601", "9223372036854775807"])
    func valuesOutOfRangeAreRefusedByName(value: String) throws {
        #expect {
            _ = try LiveServer.loadConfiguration("\"ledger\": {\"sqliteBusyTimeoutSeconds\": \(value)}")
        } throws: { error in
            (error as? ConfigurationError)?.message.contains("ledger.sqliteBusyTimeoutSeconds must be from 1 to 3600") == true
        }
    }
}

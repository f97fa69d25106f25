import Testing

@testable import DepotLedger

/// Reading libpq-style URLs, no server needed.
@Suite struct PostgresURLTests {
    @Test func tcpWithEverything() throws {
        let url = try PostgresURL("postgres://depot:s%40cret@db.example:6543/ledger?sslmode=require")
        #expect(url.host == "db.example")
        #expect(url.port == 6543)
        #expect(url.unixSocketPath == nil)
        #expect(url.username == "depot")
        #expect(url.password == "s@cret")
        #expect(url.database == "ledger")
        #expect(url.tlsMode == .require)
        #expect(!url.description.contains("s@cret"))
    }

    @Test func tcpDefaults() throws {
        let url = try PostgresURL("postgresql://depot@127.0.0.1/depot")
        #expect(url.port == 5432)
        #expect(url.password == nil)
        #expect(url.tlsMode == .prefer)
        #expect(url.with(database: "other").database == "other")
        #expect(url.connectTimeoutSeconds == PostgresURL.defaultConnectTimeoutSeconds)
    }

    @Test func connectTimeoutIsReadAndChecked() throws {
        let url = try PostgresURL("postgres://depot@127.0.0.1/depot?connect_timeout=5")
        #expect(url.connectTimeoutSeconds == 5)
        for bad in ["0", "-1", "ten", "3601"] {
            #expect(throws: LedgerError.self) { try PostgresURL("postgres://depot@127.0.0.1/depot?connect_timeout=\(bad)") }
        }
    }

    @Test func unixSocketDirectory() throws {
        let url = try PostgresURL("postgres:///ledger?host=/tmp/pg&port=54321&user=depot")
        #expect(url.host == nil)
        #expect(url.unixSocketPath == "/tmp/pg/.s.PGSQL.54321")
        #expect(url.username == "depot")
        #expect(url.database == "ledger")
    }

    @Test func unixSocketFile() throws {
        let url = try PostgresURL("postgres://depot@/ledger?host=/run/postgresql/.s.PGSQL.5432")
        #expect(url.unixSocketPath == "/run/postgresql/.s.PGSQL.5432")
        #expect(url.username == "depot")
    }

    @Test(arguments: ["mysql://x@y/z", "not a url", "postgres://h/db?sslmode=maybe", "postgres://h/db?port=99999"])
    func refused(_ text: String) {
        #expect(throws: LedgerError.self) { try PostgresURL(text) }
    }
}

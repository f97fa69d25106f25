import ArgumentParser
import DepotCore
import DepotLedger
import DepotServer
import Foundation
import Logging

/// `depot transactions --unfinished [--older-than 1h]`: lists deliveries still waiting for confirmation.
struct Transactions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List transactions whose delivery was not confirmed (stuck deliveries), from the ledger."
    )

    @OptionGroup var common: CommonOptions

    @Flag(help: "List unfinished transactions (the only listing so far).")
    var unfinished = false

    @Option(name: .customLong("older-than"), help: "Only deliveries idle at least this long: 90s, 30m, 1h, 2d (default 0s).")
    var olderThan: String = "0s"

    @Option(name: .customLong("database-url"), help: "The ledger (default: the configuration's, or DEPOT_DATABASE_URL).")
    var databaseURL: String?

    func validate() throws {
        guard unfinished else { throw ValidationError("say what to list: --unfinished") }
        guard Self.seconds(olderThan) != nil else { throw ValidationError("--older-than takes a duration such as 90s, 30m, 1h or 2d") }
    }

    func run() async throws {
        var configuration = try common.load()
        if let databaseURL { configuration.ledgerURL = databaseURL }
        var logger = Logger(label: "depot")
        logger.logLevel = .warning
        let ledger = try await LedgerOpener.open(configuration.ledgerURL, logger: logger)
        let now = Int64(Date().timeIntervalSince1970)
        // Idle at least `olderThan`: last activity at or before now - olderThan.
        let rows = try await ledger.unfinished(before: now - (Self.seconds(olderThan) ?? 0) + 1)
        print("transaction\tcontent\tversion\tgrants\tbytes served\tconfirmed\tlast activity")
        for row in rows {
            print(
                [row.transactionId, row.delivery.contentId, row.delivery.version, String(row.grantsIssued),
                 String(row.bytesCovered), row.confirmedAt.map(ISO8601.format) ?? "-", ISO8601.format(row.lastActivityAt)]
                    .joined(separator: "\t"))
        }
        print("\(rows.count) unfinished deliveries")
    }

    static func seconds(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let unit = text.last.flatMap({ units[$0] }), let count = Int64(text.dropLast()), count >= 0 else { return nil }
        return count * unit
    }
}

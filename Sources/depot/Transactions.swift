import DepotSettings
import ArgumentParser
import DepotCore
import DepotLedger
import DepotServer
import Foundation
import Logging

/// `depot transactions --unfinished [--older-than 1h]`: lists deliveries still waiting for confirmation.
/// `depot transactions --apple-pending`: lists App Store Server API calls (Finish Transaction) not yet
/// acknowledged by Apple: pending ones (with their attempts and next try) and failed ones (with the reason).
struct Transactions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List transactions whose delivery was not confirmed, or App Store calls still pending, from the ledger.",
        subcommands: [TransactionsRefresh.self]
    )

    @OptionGroup var common: CommonOptions

    @Flag(help: "List unfinished transactions.")
    var unfinished = false

    @Flag(name: .customLong("apple-pending"), help: "List App Store Server API calls pending or failed (the outbox).")
    var applePending = false

    @Option(name: .customLong("older-than"), help: "Only deliveries idle at least this long: 90s, 30m, 1h, 2d (default 0s).")
    var olderThan: String = "0s"

    @Option(name: .customLong("database-url"), help: "The ledger (default: the configuration's, or DEPOT_DATABASE_URL).")
    var databaseURL: String?

    func validate() throws {
        // Validated with every subcommand too (`transactions refresh` passes neither flag): the choice is checked in run().
        guard !(unfinished && applePending) else { throw ValidationError("list one thing at a time: --unfinished or --apple-pending") }
        guard Self.seconds(olderThan) != nil else { throw ValidationError("--older-than takes a duration such as 90s, 30m, 1h or 2d") }
    }

    func run() async throws {
        guard unfinished || applePending else {
            throw ValidationError("say what to list: --unfinished or --apple-pending (or use `depot transactions refresh ID`)")
        }
        var configuration = try common.load()
        if let databaseURL { configuration.ledgerURL = databaseURL }
        var logger = Logger(label: "depot")
        logger.logLevel = .warning
        let ledger = try await LedgerOpener.open(
            configuration.ledgerURL, busyTimeoutSeconds: configuration.ledgerBusyTimeoutSeconds, logger: logger)
        if applePending {
            do {
                try await listApplePending(ledger)
            } catch {
                await LedgerOpener.close(ledger)
                throw error
            }
            await LedgerOpener.close(ledger)
            return
        }
        let now = Int64(Date().timeIntervalSince1970)
        // Idle at least `olderThan`: last activity at or before now - olderThan.
        let rows = try await ledger.unfinished(before: now - (Self.seconds(olderThan) ?? 0) + 1)
        print("transaction\tcontent\tversion\tgrants\tbytes served\tconfirmed\tlast activity\tstore deadline")
        for row in rows {
            print(
                [
                    row.transactionId, row.delivery.contentId, row.delivery.version, String(row.grantsIssued),
                    String(row.bytesCovered), row.confirmedAt.map(UTCTimestamp.format) ?? "-", UTCTimestamp.format(row.lastActivityAt),
                    row.storeDeadline.map(UTCTimestamp.format) ?? "-",
                ]
                .joined(separator: "\t"))
        }
        print("\(rows.count) unfinished deliveries")
    }

    static func seconds(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let unit = text.last.flatMap({ units[$0] }), let count = Int64(text.dropLast()), count >= 0 else { return nil }
        return count * unit
    }

    private func listApplePending(_ ledger: any Ledger) async throws {
        let jobs = try await ledger.unsettledStoreJobs()
        print("id\tkind\ttransaction\tenvironment\tstate\tattempts\tnext attempt\tcreated\tlast error")
        for job in jobs {
            print(
                [
                    String(job.id), job.kind.rawValue, job.transactionId, job.environment, job.state.rawValue, String(job.attempts),
                    UTCTimestamp.format(job.nextAttemptAt), UTCTimestamp.format(job.createdAt), job.lastError ?? "-",
                ]
                .joined(separator: "\t"))
        }
        let failed = jobs.filter { $0.state == .failed }.count
        print("\(jobs.count - failed) pending, \(failed) failed App Store calls")
    }
}

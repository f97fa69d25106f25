import DepotSettings
import DepotServices
import DepotCore
import ArgumentParser
import DepotLedger
import DepotServer
import Foundation
import Logging

/// `depot transactions refresh ID [--environment ENV]`: asks the App Store about one transaction (Get
/// Transaction Info), verifies the answer and applies its revocation and expiry to the ledger. A running
/// server refuses the grants of a transaction found revoked within its revocation refresh (seconds).
struct TransactionsRefresh: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh",
        abstract: "Look a transaction up at the App Store (Get Transaction Info) and apply what it says to the ledger."
    )

    @OptionGroup var common: CommonOptions

    @Argument(help: "The App Store transaction id.")
    var transactionId: String

    @Option(help: "The transaction's environment (Production, Sandbox), for one the ledger has not seen.")
    var environment: String?

    /// `--database-url` is the parent's option (one declaration: a second one here would never receive it).
    @ParentCommand var transactions: Transactions

    func validate() throws {
        guard !transactionId.isEmpty, transactionId.utf8.count <= 64, transactionId.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw ValidationError("an App Store transaction id is 1 to 64 digits")
        }
    }

    func run() async throws {
        var configuration = try common.load()
        if let databaseURL = transactions.databaseURL { configuration.ledgerURL = databaseURL }
        var logger = Logger(label: "depot")
        logger.logLevel = .warning
        let ledger = try await LedgerOpener.open(
            configuration.ledgerURL, busyTimeoutSeconds: configuration.ledgerBusyTimeoutSeconds, logger: logger)
        let outcome: TransactionRefresh.Outcome
        do {
            let refresh = try TransactionRefresh.make(configuration, ledger: ledger, logger: logger)
            outcome = try await refresh.refresh(transactionId: transactionId, environment: environment)
        } catch {
            await LedgerOpener.close(ledger)
            throw ValidationError("\(error)")
        }
        await LedgerOpener.close(ledger)
        let revoked = outcome.revokedAt.map { "revoked at \(UTCTimestamp.format($0 / 1000))" } ?? "not revoked"
        let expiry = outcome.expiresAt.map { ", expires \(UTCTimestamp.format($0 / 1000))" } ?? ""
        print("\(outcome.transactionId) (\(outcome.environment)): \(revoked)\(expiry)")
    }
}

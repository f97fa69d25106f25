import DepotSettings
import DepotCore
import ArgumentParser
import DepotLedger
import DepotServer
import DepotServices
import Foundation
import Logging

/// `depot keys create|list|revoke`: publisher API keys in the ledger the configuration names.
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, list and revoke publisher API keys (stored hashed in the ledger).",
        subcommands: [KeysCreate.self, KeysList.self, KeysRevoke.self]
    )
}

/// Options of every `depot keys` command: the configuration, and the ledger it names or another.
struct LedgerOptions: ParsableArguments {
    @OptionGroup var common: CommonOptions

    @Option(name: .customLong("database-url"), help: "The ledger (default: the configuration's, or DEPOT_DATABASE_URL).")
    var databaseURL: String?

    /// Opens the ledger, runs `body`, and closes it.
    func withLedger<T>(_ body: (any Ledger) async throws -> T) async throws -> T {
        var configuration = try common.load()
        if let databaseURL { configuration.ledgerURL = databaseURL }
        var logger = Logger(label: "depot")
        logger.logLevel = .warning
        let ledger = try await LedgerOpener.open(
            configuration.ledgerURL, busyTimeoutSeconds: configuration.ledgerBusyTimeoutSeconds, logger: logger)
        do {
            let result = try await body(ledger)
            await LedgerOpener.close(ledger)
            return result
        } catch {
            await LedgerOpener.close(ledger)
            throw error
        }
    }
}

/// `depot keys create --publisher NAME [--products PREFIX ...]`: prints a new key once.
struct KeysCreate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a publisher key and print it once (last line); only its SHA-256 is kept."
    )

    @OptionGroup var ledger: LedgerOptions

    @Option(help: "Who holds the key (a name without spaces).")
    var publisher: String

    @Option(
        name: .customLong("products"), parsing: .upToNextOption,
        help: "Product-id prefixes the key may act on (default: every product).")
    var products: [String] = []

    func validate() throws {
        if let problem = PublisherKey.problem(withName: publisher, what: "--publisher") { throw ValidationError(problem) }
        for prefix in products {
            if let problem = PublisherKey.problem(withName: prefix, what: "a --products prefix") { throw ValidationError(problem) }
        }
    }

    func run() async throws {
        let (key, record) = PublisherKey.make(
            publisher: publisher, productPrefixes: Array(Set(products)).sorted(), now: Int64(Date().timeIntervalSince1970))
        try await ledger.withLedger { ledger in try await ledger.createPublisherKey(record) }
        let scope = record.productPrefixes.isEmpty ? "every product" : record.productPrefixes.joined(separator: ", ")
        print("key \(record.id) for \(record.publisher), acting on \(scope); it is shown only now:")
        print(key)
    }
}

/// `depot keys list`: id, publisher, scopes, created, revoked.
struct KeysList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List publisher keys (never the keys themselves).")

    @OptionGroup var ledger: LedgerOptions

    func run() async throws {
        let keys = try await ledger.withLedger { ledger in try await ledger.publisherKeys() }
        print("id\tpublisher\tproducts\tcreated\trevoked")
        for key in keys {
            print(
                [
                    key.id, key.publisher, key.productPrefixes.isEmpty ? "*" : key.productPrefixes.joined(separator: ","),
                    UTCTimestamp.format(key.createdAt), key.revokedAt.map(UTCTimestamp.format) ?? "-",
                ]
                .joined(separator: "\t"))
        }
        print("\(keys.count) keys")
    }
}

/// `depot keys revoke ID`: the key stops opening publisher routes at once.
struct KeysRevoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Revoke a publisher key by its id.")

    @OptionGroup var ledger: LedgerOptions

    @Argument(help: "The key's id, as `depot keys list` shows it.")
    var id: String

    func run() async throws {
        let outcome = try await ledger.withLedger { ledger in
            try await ledger.revokePublisherKey(id: id, now: Int64(Date().timeIntervalSince1970))
        }
        switch outcome {
        case .revoked: print("key \(id) revoked")
        case .alreadyRevoked: print("key \(id) was already revoked")
        case .unknownKey: throw ValidationError("no publisher key has the id \(id); see `depot keys list`")
        }
    }
}

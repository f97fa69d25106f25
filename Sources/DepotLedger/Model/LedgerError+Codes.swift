extension LedgerError {
    /// The engine could not be reached or refused the operation (busy, disconnected, I/O error).
    package static func unavailable(_ message: String) -> LedgerError {
        LedgerError(code: "unavailable", message: message)
    }

    /// Whether the engine could not be reached or refused the operation (`unavailable`): trying again at once
    /// would likely fail the same way.
    package var isUnavailable: Bool { code == "unavailable" }

    /// The stored data is damaged or not what the ledger wrote.
    package static func corrupt(_ message: String) -> LedgerError {
        LedgerError(code: "corrupt", message: message)
    }

    /// A transaction presented again is not the purchase recorded under its id: another store, another product
    /// at the App Store, another purchase token or product at Google Play. Nothing was changed.
    package static func transactionConflict(_ message: String) -> LedgerError {
        LedgerError(code: transactionConflictCode, message: message)
    }

    /// The code of `transactionConflict`.
    package static let transactionConflictCode = "transaction-conflict"

    /// The schema could not be brought to the version this build expects.
    package static func migration(_ message: String) -> LedgerError {
        LedgerError(code: "migration", message: message)
    }
}

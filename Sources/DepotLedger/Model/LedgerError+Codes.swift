extension LedgerError {
    /// The engine could not be reached or refused the operation (busy, disconnected, I/O error).
    package static func unavailable(_ message: String) -> LedgerError {
        LedgerError(code: "unavailable", message: message)
    }

    /// The stored data is damaged or not what the ledger wrote.
    package static func corrupt(_ message: String) -> LedgerError {
        LedgerError(code: "corrupt", message: message)
    }

    /// The schema could not be brought to the version this build expects.
    package static func migration(_ message: String) -> LedgerError {
        LedgerError(code: "migration", message: message)
    }
}

extension LedgerError {
    /// The engine could not be reached or refused the operation (disconnected, I/O error).
    package static func unavailable(_ message: String, engineCode: String? = nil, cause: (any Error & Sendable)? = nil) -> LedgerError {
        LedgerError(.unavailable, message: message, engineCode: engineCode, cause: cause)
    }

    /// Another operation held what this one needed past its wait.
    package static func busy(_ message: String, engineCode: String? = nil, cause: (any Error & Sendable)? = nil) -> LedgerError {
        LedgerError(.busy, message: message, engineCode: engineCode, cause: cause)
    }

    /// Whether the ledger cannot serve the operation now (`unavailable` or `busy`): trying again at once would
    /// likely fail the same way.
    package var isUnavailable: Bool { code == .unavailable || code == .busy }

    /// The stored data is damaged or not what the ledger wrote.
    package static func corrupt(_ message: String, engineCode: String? = nil, cause: (any Error & Sendable)? = nil) -> LedgerError {
        LedgerError(.corrupt, message: message, engineCode: engineCode, cause: cause)
    }

    /// A transaction presented again is not the purchase recorded under its id: another store, another product
    /// at the App Store, another purchase token or product at Google Play. Nothing was changed.
    package static func transactionConflict(_ message: String) -> LedgerError {
        LedgerError(.conflict, message: message)
    }

    /// The schema could not be brought to the version this build expects.
    package static func migration(_ message: String, cause: (any Error & Sendable)? = nil) -> LedgerError {
        LedgerError(.migration, message: message, cause: cause)
    }

    /// A write the schema's constraints refused.
    package static func constraint(_ message: String, engineCode: String? = nil, cause: (any Error & Sendable)? = nil) -> LedgerError {
        LedgerError(.constraint, message: message, engineCode: engineCode, cause: cause)
    }
}

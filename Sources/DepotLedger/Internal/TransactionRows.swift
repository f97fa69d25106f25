import DepotCore

/// Reading transaction rows, and the audit trail every transaction's changes write to.
enum TransactionRows {
    /// The selected columns, in the order `transaction(_:)` reads them.
    static let columns = """
        id, original_id, product_id, purchase_date_ms, expires_date_ms, revocation_date_ms, quantity,
        app_account_token, environment, state, first_seen_at, finished_at, product_type, store, store_product_id,
        purchase_token, ownership, revocation_type, revocation_percentage, revocation_at_ms, revoked_quantity,
        rental_period_s, rental_expiration_s, rental_started_at
        """

    /// Who owns each transaction (`PurchaseOwnership`'s names; rows recorded before it was told are `purchased`), and
    /// what a refund took back and how (`PurchaseRevocation`: its kind, Apple's percentage in milliunits, its time,
    /// the units revoked; a revocation recorded before them has none but its date). The same statements in both
    /// engines (SQLite `v14`, PostgreSQL 14).
    static let refundSchema: [String] = [
        "ALTER TABLE transactions ADD COLUMN ownership TEXT NOT NULL DEFAULT 'purchased'",
        "ALTER TABLE transactions ADD COLUMN revocation_type TEXT",
        "ALTER TABLE transactions ADD COLUMN revocation_percentage BIGINT",
        "ALTER TABLE transactions ADD COLUMN revocation_at_ms BIGINT",
        "ALTER TABLE transactions ADD COLUMN revoked_quantity BIGINT NOT NULL DEFAULT 0",
    ]

    /// A rented purchase's terms in seconds (`RentalTerms`; NULL for a purchase that is not rented), recorded when
    /// it is first known a rental and never changed, and when its consumption started: the first confirmed delivery
    /// (seconds since 1970, NULL until then). The same statements in both engines (SQLite `v16`, PostgreSQL 16).
    static let rentalSchema: [String] = [
        "ALTER TABLE transactions ADD COLUMN rental_period_s BIGINT",
        "ALTER TABLE transactions ADD COLUMN rental_expiration_s BIGINT",
        "ALTER TABLE transactions ADD COLUMN rental_started_at BIGINT",
    ]

    /// The store that sold each transaction (`PurchaseStore`'s names); rows recorded before stores were told
    /// apart are the App Store's. The same statement in both engines (SQLite `v8`, PostgreSQL 8).
    static let storeSchema: [String] = [
        "ALTER TABLE transactions ADD COLUMN store TEXT NOT NULL DEFAULT 'app-store'"
    ]

    /// What a store's API names a purchase by, when it is not the transaction id: Google Play's product id and
    /// purchase token (NULL for the App Store). The same statements in both engines (SQLite `v9`, PostgreSQL 9).
    static let storeHandleSchema: [String] = [
        "ALTER TABLE transactions ADD COLUMN store_product_id TEXT",
        "ALTER TABLE transactions ADD COLUMN purchase_token TEXT",
    ]

    /// One transaction, if known.
    static func transaction(_ session: any SQLSession, id: String) async throws -> LedgerTransaction? {
        try await session.row("SELECT \(unescaped: columns) FROM transactions WHERE id = \(id)").map(transaction)
    }

    /// A transaction from its columns, in `columns` order.
    static func transaction(_ row: SQLRow) throws -> LedgerTransaction {
        let stateName = try row.text(9)
        guard let state = DeliveryState(rawValue: stateName) else {
            throw LedgerError.corrupt("unknown transaction state \(stateName)")
        }
        let storeName = try row.text(13)
        guard let store = PurchaseStore(rawValue: storeName) else {
            throw LedgerError.corrupt("unknown store \(storeName)")
        }
        var transaction = PurchaseTransaction(
            id: try row.text(0), originalId: try row.text(1), productId: try row.text(2),
            purchaseDate: try row.integer(3), expiresDate: try row.optionalInteger(4),
            revocationDate: try row.optionalInteger(5), quantity: try row.int(6), appAccountToken: try row.optionalText(7),
            environment: try row.text(8), store: store, storeProductId: try row.optionalText(14),
            purchaseToken: try row.optionalText(15))
        let ownershipName = try row.text(16)
        guard let ownership = PurchaseOwnership(rawValue: ownershipName) else {
            throw LedgerError.corrupt("unknown ownership \(ownershipName)")
        }
        transaction.ownership = ownership
        if let kindName = try row.optionalText(17) {
            guard let kind = PurchaseRevocation.Kind(rawValue: kindName) else {
                throw LedgerError.corrupt("unknown revocation type \(kindName)")
            }
            transaction.revocation = PurchaseRevocation(
                kind: kind, percentage: try row.optionalInteger(18).map { Int(clamping: $0) },
                at: try row.optionalInteger(19) ?? transaction.revocationDate ?? 0, revokedQuantity: try row.int(20))
        }
        if let period = try row.optionalInteger(21), let expiration = try row.optionalInteger(22) {
            transaction.rental = RentalTerms(rentalPeriod: period, expirationPeriod: expiration)
        }
        var stored = LedgerTransaction(
            transaction: transaction, state: state, firstSeenAt: try row.integer(10), finishedAt: try row.optionalInteger(11),
            productType: try productType(row.optionalText(12), transactionId: transaction.id))
        stored.rentalStartedAt = try row.optionalInteger(23)
        return stored
    }

    /// The type a transaction was recorded under, from its `product_type` column; nil (NULL) when none was.
    static func productType(_ text: String?, transactionId: String) throws(LedgerError) -> ProductType? {
        guard let text else { return nil }
        guard let type = ProductType(rawValue: text) else {
            throw .corrupt("transaction \(transactionId) has the unknown product type \(text)")
        }
        return type
    }

    /// Appends an event to a transaction's audit trail.
    static func audit(
        _ session: any SQLSession, _ transactionId: String, _ at: Int64, _ event: String, _ detail: String
    ) async throws {
        try await session.execute(
            "INSERT INTO audit_events (transaction_id, at, event, detail) VALUES (\(transactionId), \(at), \(event), \(detail))")
    }
}

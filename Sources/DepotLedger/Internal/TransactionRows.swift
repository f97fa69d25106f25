import DepotCore

/// Transaction columns both engines decode alike.
enum TransactionRows {
    /// The type a transaction was recorded under, from its `product_type` column; nil (NULL) when none was.
    static func productType(_ text: String?, transactionId: String) throws(LedgerError) -> ProductType? {
        guard let text else { return nil }
        guard let type = ProductType(rawValue: text) else {
            throw .corrupt("transaction \(transactionId) has the unknown product type \(text)")
        }
        return type
    }
}

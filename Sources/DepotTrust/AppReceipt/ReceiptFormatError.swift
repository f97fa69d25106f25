/// Why a receipt's bytes were not read: a sentence naming the part at fault, refused as `receipt-malformed`
/// (or, with ``unsupported``, `receipt-unsupported-algorithm`).
struct ReceiptFormatError: Error, Sendable, Equatable {
    /// What is wrong.
    var reason: String
    /// Whether the receipt is well formed but uses an algorithm or feature this verifier refuses.
    var unsupported = false

    init(_ reason: String, unsupported: Bool = false) {
        self.reason = reason
        self.unsupported = unsupported
    }

    /// The refusal as the verifier reports it.
    var verificationError: AppStoreVerificationError {
        AppStoreVerificationError(unsupported ? .receiptUnsupportedAlgorithm : .receiptMalformed, "the app receipt: " + reason)
    }
}

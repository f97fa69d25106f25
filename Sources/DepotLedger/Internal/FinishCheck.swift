import DepotCore
/// The pure rule behind `Ledger.finish`: which expected contents the app failed to confirm.
///
/// Every expected content (content id with its digest) must appear among the confirmations with the same
/// digest. A content with no confirmation at all is `missing`; one confirmed only with other digests is
/// `wrongDigest`. Confirmations of contents that were not expected are ignored.
struct FinishCheck: Equatable {
    /// Ids of expected contents the app did not confirm, sorted, without repeats.
    var missing: [String]
    /// Ids of expected contents confirmed with another digest, sorted, without repeats.
    var wrongDigest: [String]

    /// Whether the confirmation is complete and right.
    var isComplete: Bool { missing.isEmpty && wrongDigest.isEmpty }

    /// Compares what was expected with what the app says it received.
    init(expected: [PlannedDelivery], delivered: [ConfirmedDelivery]) {
        var digestsByContent: [String: Set<String>] = [:]
        for confirmation in delivered {
            digestsByContent[confirmation.contentId, default: []].insert(confirmation.digest)
        }
        var missing = Set<String>()
        var wrongDigest = Set<String>()
        for planned in expected {
            guard let digests = digestsByContent[planned.contentId] else {
                missing.insert(planned.contentId)
                continue
            }
            if !digests.contains(planned.digest) {
                wrongDigest.insert(planned.contentId)
            }
        }
        self.missing = missing.sorted()
        self.wrongDigest = wrongDigest.sorted()
    }

    /// The outcome to answer when the confirmation is not complete.
    var mismatch: FinishOutcome { .mismatch(missing: missing, wrongDigest: wrongDigest) }

    /// The expected deliveries to mark confirmed, without repeats, in a stable order (content id, then
    /// version) so that concurrent writers lock rows in the same order.
    static func confirmations(of expected: [PlannedDelivery]) -> [PlannedDelivery] {
        Array(Set(expected)).sorted { ($0.contentId, $0.version, $0.digest) < ($1.contentId, $1.version, $1.digest) }
    }
}

import Synchronization

/// How many bundle answers, and how many body bytes, this instance sent to edges filling their caches
/// (requests admitted by the shared secret): what an operator reads to see that edges answer from their
/// caches, and what the edge tests check.
package final class EdgeFillCounter: Sendable {
    private let answers = Atomic<Int>(0)
    private let bytes = Atomic<Int>(0)

    /// Creates a counter at zero.
    package init() {}

    /// Counts one answer that sent `bodyBytes` bytes of a bundle.
    func record(bodyBytes: Int64) {
        answers.wrappingAdd(1, ordering: .relaxed)
        bytes.wrappingAdd(Int(bodyBytes), ordering: .relaxed)
    }

    /// Answers sent to edges so far.
    package var answerCount: Int { answers.load(ordering: .relaxed) }

    /// Bundle body bytes sent to edges so far.
    package var byteCount: Int { bytes.load(ordering: .relaxed) }
}

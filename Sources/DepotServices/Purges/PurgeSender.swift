/// Why one attempt to hand a purge to the hook failed, in a sentence for the log.
package struct PurgeFailure: Error, Sendable, Equatable {
    /// What went wrong.
    package let message: String

    /// Creates a failure.
    package init(_ message: String) { self.message = message }
}

/// Hands one purge to the purge hook, once, within a time limit.
package protocol PurgeSender: Sendable {
    /// Sends `purge` (whose JSON is `body`); returns when the hook took it, throws when it did not.
    func send(_ purge: PurgeRequest, body: [UInt8], timeoutSeconds: Int) async throws(PurgeFailure)
}

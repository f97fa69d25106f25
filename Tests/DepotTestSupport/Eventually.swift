import Testing

/// Waits for a condition with a generous bound (a fallback, never a measure of speed), checking every few
/// milliseconds: an event wait, never a sleep for correctness. When the bound passes, the wait is recorded
/// as an issue at the caller and the test stops there. The default bound is five minutes: full runs on a loaded
/// machine have seen an upload's first bytes take over a minute to reach its file.
package func eventually(
    _ what: String, within seconds: Double = 300, sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("\(what) did not happen within \(seconds) s", sourceLocation: sourceLocation)
    throw EventuallyTimedOut(what: what)
}

/// A wait of `eventually` that reached its bound.
package struct EventuallyTimedOut: Error, CustomStringConvertible {
    /// What was awaited.
    package let what: String
    /// Says what was given up on.
    package var description: String { "gave up waiting for \(what)" }
}

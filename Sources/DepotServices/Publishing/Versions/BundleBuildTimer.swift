/// The kind of bundle a build makes.
package enum BundleBuildKind: String, Sendable {
    /// A whole version's bundle.
    case full
    /// A delta bundle from an earlier version.
    case delta
}

/// Where the time bundle builds take is recorded (the server's metrics).
package protocol BundleBuildTimer: Sendable {
    /// Records one build of `kind` that took `duration`, whether it succeeded or threw.
    func bundleBuilt(_ kind: BundleBuildKind, duration: Duration)
}

extension Optional where Wrapped == any BundleBuildTimer {
    /// Runs `body`, timing it as a bundle build when there is a timer to record into.
    package func timingBuild<Value>(_ kind: BundleBuildKind, _ body: () async throws -> Value) async rethrows -> Value {
        guard let timer = self else { return try await body() }
        let start = ContinuousClock.now
        defer { timer.bundleBuilt(kind, duration: ContinuousClock.now - start) }
        return try await body()
    }
}

extension Optional where Wrapped == DepotMetrics {
    /// Runs `body`, timing it as a bundle build when there are metrics to record into.
    func timingBuild<Value>(_ kind: DepotMetrics.BuildKind, _ body: () async throws -> Value) async rethrows -> Value {
        guard let metrics = self else { return try await body() }
        return try await metrics.timingBuild(kind, body)
    }
}

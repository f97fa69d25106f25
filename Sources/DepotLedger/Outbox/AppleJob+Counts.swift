extension AppleJob.State {
    /// Counts by state from `(state name, count)` rows; a name no state has is left out.
    static func counts(_ rows: [(String, Int)]) -> [AppleJob.State: Int] {
        var counts: [AppleJob.State: Int] = [:]
        for (name, count) in rows {
            if let state = AppleJob.State(rawValue: name) { counts[state, default: 0] += count }
        }
        return counts
    }
}

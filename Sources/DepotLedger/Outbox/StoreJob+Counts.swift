extension StoreJob.State {
    /// Counts by state from `(state name, count)` rows; a name no state has is left out.
    static func counts(_ rows: [(String, Int)]) -> [StoreJob.State: Int] {
        var counts: [StoreJob.State: Int] = [:]
        for (name, count) in rows {
            if let state = StoreJob.State(rawValue: name) { counts[state, default: 0] += count }
        }
        return counts
    }
}

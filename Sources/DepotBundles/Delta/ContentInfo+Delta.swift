extension ContentInfo {
    /// The property list of a delta bundle: `plan.target` described, plus the base version and the
    /// removed paths.
    package init(delta plan: DeltaPlan) {
        self.init(pack: plan.target)
        baseContentVersion = plan.baseVersion
        removedPaths = plan.removedPaths
    }
}

import Logging

/// Version jobs and the data directory's free-space floor: unpacking and bundling write several times the pack's
/// size, so a job does not start while the disk is below `storage.minFreeBytes`.
extension VersionJobRunner {
    /// How long a job waits for space before it fails: the staleness bound (the job is reported on meanwhile, so it is
    /// not failed as stale).
    var floorWaitSeconds: Int64 { max(1, staleSeconds) }

    /// Waits, checking once a second, while the disk is below the floor; nil once there is room, else (after
    /// ``floorWaitSeconds``, or at a stop) the reason the job fails with, starting with `insufficient-storage`.
    func waitForSpace() async -> String? {
        guard let floor else { return nil }
        var decision = floor.decision()
        guard decision != .enough else { return nil }
        logger.warning(
            "a version job waits for disk space", metadata: ["reason": "\(decision.message)", "path": "\(floor.path)"])
        var waited: Int64 = 0
        while decision != .enough, waited < floorWaitSeconds, !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            waited += 1
            decision = floor.decision()
        }
        guard decision != .enough else { return nil }
        return "insufficient-storage: \(decision.message); post the version again"
    }
}

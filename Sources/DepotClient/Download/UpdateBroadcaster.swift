import Foundation

/// Hands every `DownloadUpdate` to each current listener, and the latest one to a listener that joins late.
/// A listener that reads slowly sees the newest updates (each stream keeps the last 16); a terminal
/// update ends every stream.
final class UpdateBroadcaster: @unchecked Sendable {
    private let lock = NSLock()
    private var latest: DownloadUpdate
    private var listeners: [UUID: AsyncStream<DownloadUpdate>.Continuation] = [:]

    /// A broadcaster whose first update is `initial`.
    init(initial: DownloadUpdate) {
        latest = initial
    }

    /// The last update sent.
    var current: DownloadUpdate { lock.withLock { latest } }

    /// A stream starting with the current update.
    func stream() -> AsyncStream<DownloadUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: DownloadUpdate.self, bufferingPolicy: .bufferingNewest(16))
        let id = UUID()
        let first = lock.withLock {
            if !latest.state.isTerminal { listeners[id] = continuation }
            return latest
        }
        continuation.yield(first)
        if first.state.isTerminal {
            continuation.finish()
        } else {
            continuation.onTermination = { [weak self] _ in
                guard let self else { return }
                _ = self.lock.withLock { self.listeners.removeValue(forKey: id) }
            }
        }
        return stream
    }

    /// Sends `change` applied to the current update to every listener; after a terminal state nothing changes.
    func send(_ change: (inout DownloadUpdate) -> Void) {
        let (update, targets, ended) = lock.withLock { () -> (DownloadUpdate, [AsyncStream<DownloadUpdate>.Continuation], Bool) in
            guard !latest.state.isTerminal else { return (latest, [], false) }
            change(&latest)
            let targets = Array(listeners.values)
            if latest.state.isTerminal { listeners.removeAll() }
            return (latest, targets, latest.state.isTerminal)
        }
        for target in targets {
            target.yield(update)
            if ended { target.finish() }
        }
    }
}

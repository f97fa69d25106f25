import DepotCore
import NIOConcurrencyHelpers
import NIOCore

/// The per-loop states (``OriginLoopState``) of one server, one per event loop, made on first use.
final class OriginLoopStates: Sendable {
    private let states = NIOLockedValueBox<[ObjectIdentifier: (loop: any EventLoop, state: NIOLoopBound<OriginLoopState>)]>(
        [:])
    private let source: (any BundleFileSource)?

    /// States whose bundle files come from `source`, when given (see ``BundleFiles/source``).
    init(source: (any BundleFileSource)? = nil) {
        self.source = source
        source?.whenFilesEvicted { [weak self] digests in self?.closeHandles(of: digests) }
    }

    /// The state of the loop running the caller; call on that loop.
    func state(for eventLoop: any EventLoop) -> OriginLoopState {
        let key = ObjectIdentifier(eventLoop)
        let bound = states.withLockedValue { states in
            if let entry = states[key] { return entry.state }
            let bound = NIOLoopBound(OriginLoopState(source: source), eventLoop: eventLoop)
            states[key] = (eventLoop, bound)
            return bound
        }
        return bound.value
    }

    /// Asks every loop to close its handles of the files `digests` names (a small bundle's kept bytes stay).
    func closeHandles(of digests: [BundleDigest]) {
        for (loop, bound) in states.withLockedValue({ Array($0.values) }) {
            loop.execute { bound.value.bundleFiles.closeHandles(of: digests) }
        }
    }
}

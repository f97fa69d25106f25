import Testing

@testable import DepotOrigin

/// The connection's lifecycle only moves forward: open, quiescing, closing, closed.
@Suite("The bundle connection's lifecycle")
struct BundleConnectionLifecycleTests {
    typealias Lifecycle = BundleConnectionStateMachine.Lifecycle

    /// The state after `steps` from `start`.
    static func after(_ start: Lifecycle, _ steps: [(inout Lifecycle) -> Void]) -> Lifecycle {
        var state = start
        for step in steps { step(&state) }
        return state
    }

    @Test func aShutdownQuiescesAnOpenConnectionOnly() {
        #expect(Self.after(.open, [{ $0.quiesce() }]) == .quiescing)
        #expect(Self.after(.closing, [{ $0.quiesce() }]) == .closing)
        #expect(Self.after(.closed, [{ $0.quiesce() }]) == .closed)
    }

    @Test func aCloseAfterTheResponseNeverReopensAClosedConnection() {
        #expect(Self.after(.open, [{ $0.closeAfterResponse() }]) == .closing)
        #expect(Self.after(.quiescing, [{ $0.closeAfterResponse() }]) == .closing)
        #expect(Self.after(.closed, [{ $0.closeAfterResponse() }]) == .closed)
    }

    @Test func onlyAnOpenConnectionKeepsAnswersAliveAndOnlyAClosedOneTakesNoRequests() {
        let all: [Lifecycle] = [.open, .quiescing, .closing, .closed]
        #expect(all.filter(\.keepsAlive) == [.open])
        #expect(all.filter(\.isTakingRequests) == [.open, .quiescing, .closing])
        #expect(Self.after(.quiescing, [{ $0.close() }, { $0.quiesce() }, { $0.closeAfterResponse() }]) == .closed)
    }
}

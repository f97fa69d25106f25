import Synchronization
import Testing

@testable import DepotLedger

/// A bounded wait answers when the task ends, and gives up at its bound on a task that never does.
@Suite("Waiting for a task within a bound")
struct BoundedWaitTests {
    /// Holds a continuation that nobody resumes until the test lets it go.
    final class Gate: Sendable {
        private let waiting = Mutex<CheckedContinuation<Void, Never>?>(nil)

        func wait() async {
            await withCheckedContinuation { continuation in waiting.withLock { $0 = continuation } }
        }

        func open() {
            let continuation = waiting.withLock { stored in
                defer { stored = nil }
                return stored
            }
            continuation?.resume()
        }

        var isWaiting: Bool { waiting.withLock { $0 != nil } }
    }

    @Test func aTaskThatEndsIsSeenToEnd() async {
        let task = Task<Void, Never> {}
        #expect(await BoundedWait.end(of: task, within: .seconds(600)))
    }

    @Test func aTaskThatNeverEndsIsLeftAtTheBound() async throws {
        let gate = Gate()
        let stuck = Task<Void, Never> { await gate.wait() }
        // Cancelling does not end it either: it waits on a continuation, as a stuck client's run would.
        stuck.cancel()
        #expect(await BoundedWait.end(of: stuck, within: .milliseconds(200)) == false)
        // Let the task end, so that the test leaves nothing behind.
        while !gate.isWaiting { try await Task.sleep(for: .milliseconds(10)) }
        gate.open()
        await stuck.value
    }
}

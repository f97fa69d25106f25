import Synchronization
import Testing

@testable import DepotLedger

/// A bounded operation answers its own value when it ends in time, and its caller goes on at the bound (plus the
/// grace) even when the operation ignores both the close and its cancellation.
@Suite("Running an operation within a wait bound")
struct WaitBoundTests {
    /// Counts the calls of an expiry action.
    final class Calls: Sendable {
        private let count = Mutex(0)
        func note() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    @Test func anOperationThatEndsInTimeAnswersItsValueWithoutExpiry() async throws {
        let expiries = Calls()
        let value = try await WaitBound.run(within: .seconds(600), onExpiry: { expiries.note() }) { 42 }
        #expect(value == 42)
        #expect(expiries.value == 0)
    }

    @Test func anOperationsErrorIsThrown() async {
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            _ = try await WaitBound.run(within: .seconds(600), onExpiry: {}) { () async throws -> Int in throw Refused() }
        }
    }

    @Test func anOperationThatHonoursCancellationEndsAtTheBound() async throws {
        let expiries = Calls()
        let value = try await WaitBound.run(within: .milliseconds(100), grace: .seconds(600), onExpiry: { expiries.note() }) {
            try await Task.sleep(for: .seconds(600))
            return 1
        }
        // Answered as soon as the cancelled sleep ended, long before the grace.
        #expect(value == nil)
        #expect(expiries.value == 1)
    }

    @Test func anOperationThatIgnoresItsCancellationIsLeftAfterTheGrace() async throws {
        let gate = BoundedWaitTests.Gate()
        let expiries = Calls()
        let value = try await WaitBound.run(within: .milliseconds(100), grace: .milliseconds(100), onExpiry: { expiries.note() }) {
            // Waits on a continuation nobody resumes until the test lets it go, as a lease nobody grants would.
            await gate.wait()
            return 1
        }
        #expect(value == nil)
        #expect(expiries.value == 1)
        // Let the operation end, so that the test leaves nothing behind.
        while !gate.isWaiting { try await Task.sleep(for: .milliseconds(10)) }
        gate.open()
    }

    @Test func aCancelledCallerIsAnsweredWithCancellationWhateverTheOperationDoes() async throws {
        let gate = BoundedWaitTests.Gate()
        let expiries = Calls()
        let caller = Task {
            try await WaitBound.run(within: .seconds(600), grace: .milliseconds(100), onExpiry: { expiries.note() }) {
                await gate.wait()
                return 1
            }
        }
        while !gate.isWaiting { try await Task.sleep(for: .milliseconds(10)) }
        caller.cancel()
        await #expect(throws: CancellationError.self) { _ = try await caller.value }
        #expect(expiries.value == 1)
        gate.open()
    }
}

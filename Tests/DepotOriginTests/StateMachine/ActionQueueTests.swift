import NIOCore
import Testing

@testable import DepotOrigin

/// The state machine's action queue hands actions out in the order they were queued, across wrap-arounds of its
/// ring and its growth.
struct ActionQueueTests {
    private typealias Action = BundleConnectionStateMachine.Action

    private static func number(_ action: Action?) -> Int64? {
        guard case .scheduleIdleTimer(let delay)? = action else { return nil }
        return delay.nanoseconds
    }

    @Test func actionsComeOutInTheOrderTheyWentIn() {
        var queue = BundleConnectionStateMachine.ActionQueue(capacity: 3)
        var expected: [Int64] = []
        var next: Int64 = 0
        // Batches of every size from 1 to 20, each partly drained, so that the ring wraps and grows.
        for batch in 1...20 {
            for _ in 0..<batch {
                queue.append(.scheduleIdleTimer(in: .nanoseconds(next)))
                expected.append(next)
                next += 1
            }
            for _ in 0..<(batch / 2 + 1) {
                #expect(Self.number(queue.popFirst()) == expected.removeFirst())
            }
            #expect(queue.count == expected.count)
        }
        while let action = queue.popFirst() { #expect(Self.number(action) == expected.removeFirst()) }
        #expect(expected.isEmpty && queue.isEmpty)
        #expect(queue.popFirst() == nil)
    }

    /// A copy of a queue is a value of its own: changing either leaves the other as it was.
    @Test func aCopyIsAValueOfItsOwn() {
        var queue = BundleConnectionStateMachine.ActionQueue(capacity: 2)
        for number in 0..<3 { queue.append(.scheduleIdleTimer(in: .nanoseconds(Int64(number)))) }
        var copy = queue
        copy.append(.scheduleIdleTimer(in: .nanoseconds(3)))
        #expect(Self.number(queue.popFirst()) == 0)
        #expect(queue.count == 2 && copy.count == 4)
        var seen: [Int64] = []
        while let action = copy.popFirst() { seen.append(Self.number(action) ?? -1) }
        #expect(seen == [0, 1, 2, 3])
        seen = []
        while let action = queue.popFirst() { seen.append(Self.number(action) ?? -1) }
        #expect(seen == [1, 2])
    }
}

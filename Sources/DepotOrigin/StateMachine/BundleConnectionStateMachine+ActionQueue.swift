extension BundleConnectionStateMachine {
    /// The actions queued and not yet handed out, oldest first: a ring whose storage is kept across requests, each
    /// action moved in and moved out again (`Optional.take()`), never copied and then cleared as `CircularBuffer`
    /// does with its elements (an action's payloads make each copy and clear a call that switches over its cases).
    struct ActionQueue {
        /// The ring; its size is a power of two.
        private var slots: [Action?]
        /// Where the oldest action is.
        private var head = 0
        /// How many actions are queued.
        private(set) var count = 0

        /// An empty queue with room for `capacity` actions (rounded up to a power of two) before it grows.
        init(capacity: Int = 8) {
            var size = 1
            while size < capacity { size *= 2 }
            slots = Array(repeating: nil, count: size)
        }

        /// Whether nothing is queued.
        var isEmpty: Bool { count == 0 }

        /// Queues `action` after the others.
        mutating func append(_ action: Action) {
            if count == slots.count { grow() }
            slots[(head + count) & (slots.count - 1)] = action
            count += 1
        }

        /// The oldest action, taken out of the queue; nil when there is none.
        mutating func popFirst() -> Action? {
            guard count > 0 else { return nil }
            let action = slots[head].take()
            head = (head + 1) & (slots.count - 1)
            count -= 1
            return action
        }

        /// Twice the room, the queued actions moved over in order.
        private mutating func grow() {
            var bigger = [Action?](repeating: nil, count: slots.count * 2)
            for offset in 0..<count { bigger[offset] = slots[(head + offset) & (slots.count - 1)].take() }
            slots = bigger
            head = 0
        }
    }
}

extension BundleConnectionStateMachine {
    /// The actions queued and not yet handed out, oldest first: a ring whose storage is kept across requests, each
    /// action moved into uninitialized memory and moved out again, never copied, and no empty slot destroyed (an
    /// array of optional actions copied, cleared and assigned each slot through the enum's value witnesses, a call
    /// that switches over its cases). A value: the storage is copied when a queue that shares it is changed.
    struct ActionQueue {
        /// The ring's memory, owned by one queue at a time.
        private final class Storage {
            /// The slots; their number is a power of two.
            let slots: UnsafeMutablePointer<Action>
            /// How many slots there are.
            let capacity: Int
            /// Where the oldest action is.
            var head = 0
            /// How many actions are queued.
            var count = 0

            init(capacity: Int) {
                self.capacity = capacity
                slots = .allocate(capacity: capacity)
            }

            deinit {
                for offset in 0..<count { (slots + slot(offset)).deinitialize(count: 1) }
                slots.deallocate()
            }

            /// The slot of the action `offset` places after the oldest.
            func slot(_ offset: Int) -> Int {
                (head + offset) & (capacity - 1)
            }

            /// A storage with room for `capacity` actions holding copies of these, in order.
            func copy(capacity: Int) -> Storage {
                let copy = Storage(capacity: capacity)
                for offset in 0..<count { (copy.slots + offset).initialize(to: slots[slot(offset)]) }
                copy.count = count
                return copy
            }
        }

        private var storage: Storage

        /// An empty queue with room for `capacity` actions (rounded up to a power of two) before it grows.
        init(capacity: Int = 8) {
            var size = 1
            while size < capacity { size *= 2 }
            storage = Storage(capacity: size)
        }

        /// How many actions are queued.
        var count: Int { storage.count }

        /// Whether nothing is queued.
        var isEmpty: Bool { storage.count == 0 }

        /// Queues `action` after the others.
        mutating func append(_ action: Action) {
            if !isKnownUniquelyReferenced(&storage) || storage.count == storage.capacity {
                storage = storage.copy(capacity: storage.count == storage.capacity ? storage.capacity * 2 : storage.capacity)
            }
            (storage.slots + storage.slot(storage.count)).initialize(to: action)
            storage.count += 1
        }

        /// The oldest action, taken out of the queue; nil when there is none.
        mutating func popFirst() -> Action? {
            guard storage.count > 0 else { return nil }
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy(capacity: storage.capacity) }
            let action = (storage.slots + storage.head).move()
            storage.head = storage.slot(1)
            storage.count -= 1
            return action
        }
    }
}

import Synchronization

/// Byte arrays handed from worker threads to the writer and back, so a large pack reuses a few
/// megabyte-sized buffers instead of mapping (and faulting in) a fresh one for every chunk.
final class ByteArrayPool: Sendable {
    private let arrays = Mutex<[[UInt8]]>([])
    /// The most arrays kept; more are freed. About the number a pipeline has in circulation.
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// An empty array, with whatever capacity a recycled one had.
    func take() -> [UInt8] {
        var array = arrays.withLock { $0.popLast() } ?? []
        array.removeAll(keepingCapacity: true)
        return array
    }

    /// Gives `array` back for reuse.
    func recycle(_ array: [UInt8]) {
        guard array.capacity > 0 else { return }
        arrays.withLock { arrays in
            if arrays.count < limit { arrays.append(array) }
        }
    }
}

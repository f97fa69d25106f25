import DepotSystem

/// Buffered, positioned output to a regular file, with the two moves a streaming ZIP writer needs:
/// patching bytes already written (a local header, once the CRC and sizes are known) and cutting the
/// file back (an entry that did not shrink is rewritten stored).
final class OutputFile {
    let descriptor: Int32
    private var buffer: [UInt8] = []
    private let capacity: Int
    /// File offset of `buffer[0]`.
    private var bufferStart: Int64 = 0

    init(descriptor: Int32, capacity: Int = 1 << 20) {
        self.descriptor = descriptor
        self.capacity = capacity
        buffer.reserveCapacity(capacity)
    }

    /// The offset the next byte will be written at.
    var offset: Int64 { bufferStart + Int64(buffer.count) }

    func append(_ bytes: UnsafeRawBufferPointer) throws(SystemCallError) {
        if buffer.count + bytes.count > capacity { try flush() }
        if bytes.count >= capacity {
            try POSIX.writeFully(descriptor, bytes, at: bufferStart)
            bufferStart += Int64(bytes.count)
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    func append(_ bytes: [UInt8]) throws(SystemCallError) {
        try withBytes(bytes) { (raw) throws(SystemCallError) in try append(raw) }
    }

    /// Overwrites `bytes.count` bytes at `at`, which must lie before `offset`.
    func patch(_ bytes: [UInt8], at position: Int64) throws(SystemCallError) {
        precondition(position >= 0 && position + Int64(bytes.count) <= offset)
        if position >= bufferStart {
            let start = Int(position - bufferStart)
            buffer.replaceSubrange(start..<start + bytes.count, with: bytes)
            return
        }
        // Split across the flushed part and the buffer: write the flushed part, patch the rest in memory.
        let flushedCount = Int(min(Int64(bytes.count), bufferStart - position))
        try withBytes(bytes) { (raw) throws(SystemCallError) in
            try POSIX.writeFully(descriptor, UnsafeRawBufferPointer(rebasing: raw[0..<flushedCount]), at: position)
        }
        if flushedCount < bytes.count {
            buffer.replaceSubrange(0..<bytes.count - flushedCount, with: bytes[flushedCount...])
        }
    }

    /// Discards everything from `position` on.
    func truncate(to position: Int64) throws(SystemCallError) {
        precondition(position >= 0 && position <= offset)
        if position >= bufferStart {
            buffer.removeSubrange(Int(position - bufferStart)...)
        } else {
            buffer.removeAll(keepingCapacity: true)
            try POSIX.truncate(descriptor, position)
            bufferStart = position
        }
    }

    func flush() throws(SystemCallError) {
        guard !buffer.isEmpty else { return }
        try withBytes(buffer) { (raw) throws(SystemCallError) in
            try POSIX.writeFully(descriptor, raw, at: bufferStart)
        }
        bufferStart += Int64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }
}

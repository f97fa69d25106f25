/// Calls `body` with a NUL-terminated copy of raw name bytes.
public func withCString<R>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
    var terminated = bytes
    terminated.append(0)
    return terminated.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
    }
}

/// `Array.withUnsafeBytes` with a typed error (the standard library's is `rethrows`).
public func withBytes<R, E: Error>(
    _ array: [UInt8], _ body: (UnsafeRawBufferPointer) throws(E) -> R
) throws(E) -> R {
    try array.withUnsafeBytes { raw in Result { () throws(E) -> R in try body(raw) } }.get()
}

/// `Array.withUnsafeMutableBytes` with a typed error.
public func withMutableBytes<R, E: Error>(
    _ array: inout [UInt8], _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R
) throws(E) -> R {
    try array.withUnsafeMutableBytes { raw in Result { () throws(E) -> R in try body(raw) } }.get()
}

/// A piece of an upload's body as it arrives, whatever carries it (the server's byte buffers, a test's arrays).
package protocol UploadBodyChunk: Sendable {
    /// How many bytes it holds.
    var byteCount: Int { get }

    /// Calls `body` with its bytes, valid only during the call.
    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result
}

extension Array: UploadBodyChunk where Element == UInt8 {
    /// The array's length.
    package var byteCount: Int { count }

    /// The array's bytes.
    package func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try withUnsafeBytes(body)
    }
}

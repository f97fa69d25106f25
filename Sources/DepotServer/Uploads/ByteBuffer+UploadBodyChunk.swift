import DepotServices
import NIOCore

extension ByteBuffer: UploadBodyChunk {
    /// The readable bytes' count.
    package var byteCount: Int { readableBytes }

    /// The readable bytes.
    package func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try withUnsafeReadableBytes(body)
    }
}

import Crypto
import NIOCore

extension UploadChecksum {
    /// A running hash of the bytes of one PATCH.
    struct Hasher {
        private var sha1 = Insecure.SHA1()
        private var sha256 = SHA256()
        let algorithm: Algorithm

        init(_ algorithm: Algorithm) { self.algorithm = algorithm }

        mutating func update(_ buffer: ByteBuffer) {
            buffer.withUnsafeReadableBytes { bytes in
                switch algorithm {
                case .sha1: sha1.update(bufferPointer: bytes)
                case .sha256: sha256.update(bufferPointer: bytes)
                }
            }
        }

        func finalize() -> [UInt8] {
            switch algorithm {
            case .sha1: Array(sha1.finalize())
            case .sha256: Array(sha256.finalize())
            }
        }
    }
}

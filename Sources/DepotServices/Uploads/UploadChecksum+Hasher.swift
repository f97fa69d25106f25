import Crypto

extension UploadChecksum {
    /// A running hash of the bytes of one PATCH.
    package struct Hasher {
        private var sha1 = Insecure.SHA1()
        private var sha256 = SHA256()
        package let algorithm: Algorithm

        package init(_ algorithm: Algorithm) { self.algorithm = algorithm }

        package mutating func update(_ chunk: some UploadBodyChunk) {
            chunk.withBytes { bytes in
                switch algorithm {
                case .sha1: sha1.update(bufferPointer: bytes)
                case .sha256: sha256.update(bufferPointer: bytes)
                }
            }
        }

        package func finalize() -> [UInt8] {
            switch algorithm {
            case .sha1: Array(sha1.finalize())
            case .sha256: Array(sha256.finalize())
            }
        }
    }
}

import Crypto
import DepotCore
import Foundation
import NIOCore

/// A PATCH body's expected checksum (tus checksum extension, `Upload-Checksum: sha256 BASE64`) and the
/// hash that runs over the bytes as they arrive.
struct UploadChecksum {
    /// The algorithms served, as `Tus-Checksum-Algorithm` lists them.
    enum Algorithm: String, CaseIterable {
        case sha1
        case sha256

        var digestBytes: Int {
            switch self {
            case .sha1: Insecure.SHA1.byteCount
            case .sha256: SHA256.byteCount
            }
        }
    }

    /// The algorithm named in the header.
    let algorithm: Algorithm
    /// The digest the client computed.
    let expected: [UInt8]

    /// Parses `algorithm base64digest`; an unknown algorithm or a malformed digest is a 400.
    init(header: String) throws(DepotError) {
        let parts = header.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw .badUploadHeader("Upload-Checksum must be `algorithm base64digest`")
        }
        guard let algorithm = Algorithm(rawValue: parts[0].lowercased()) else {
            throw .unsupportedChecksum(String(parts[0].prefix(32)))
        }
        guard let digest = Data(base64Encoded: String(parts[1])), digest.count == algorithm.digestBytes else {
            throw .badUploadHeader("the Upload-Checksum digest is not a base64 \(algorithm.rawValue) digest")
        }
        self.algorithm = algorithm
        self.expected = Array(digest)
    }

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

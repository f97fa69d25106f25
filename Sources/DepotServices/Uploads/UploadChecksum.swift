import Foundation

/// A PATCH body's expected checksum (tus checksum extension, `Upload-Checksum: sha256 BASE64`) and the
/// hash that runs over the bytes as they arrive (`UploadChecksum+Hasher.swift`).
package struct UploadChecksum {
    /// The algorithms served, as `Tus-Checksum-Algorithm` lists them.
    package enum Algorithm: String, CaseIterable {
        case sha1
        case sha256

        /// The digest's length in bytes (FIPS 180-4: SHA-1 160 bits, SHA-256 256 bits).
        package var digestBytes: Int {
            switch self {
            case .sha1: 20
            case .sha256: 32
            }
        }
    }

    /// The algorithm named in the header.
    package let algorithm: Algorithm
    /// The digest the client computed.
    package let expected: [UInt8]

    /// Parses `algorithm base64digest`; an unknown algorithm or a malformed digest is a 400.
    package init(header: String) throws(UploadError) {
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
}

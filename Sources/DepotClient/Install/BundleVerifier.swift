import Crypto
import Foundation

/// Checks a downloaded bundle against the sha256 digest it was offered under, before anything is unpacked.
enum BundleVerifier {
    /// Reads `file` in 1 MiB pieces and compares its sha256 with `digest` (lowercase hex).
    static func verify(file: String, digest: String) throws(DepotClientError) {
        guard let handle = FileHandle(forReadingAtPath: file) else {
            throw DepotClientError(.io, "cannot open the downloaded bundle \(file)")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        while true {
            let piece: Data?
            do {
                piece = try handle.read(upToCount: 1 << 20)
            } catch {
                throw DepotClientError(.io, "cannot read the downloaded bundle \(file): \(error.localizedDescription)")
            }
            guard let piece, !piece.isEmpty else { break }
            hasher.update(data: piece)
        }
        let actual = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        guard actual == digest.lowercased() else {
            throw DepotClientError(
                .digestMismatch,
                "the downloaded bundle's sha256 is \(actual), not the promised \(digest); it was discarded and nothing was unpacked")
        }
    }
}

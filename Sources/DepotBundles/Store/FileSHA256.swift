import DepotCore
import Crypto
import Foundation

/// The SHA-256 of a file, read in fixed chunks (memory does not grow with the file). Blocks: run it off
/// the event loops.
package enum FileSHA256 {
    /// Why a file could not be hashed.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// What happened.
        package let description: String
    }

    /// The file's digest as lowercase hex.
    package static func hex(path: String) throws(Failure) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw Failure(description: "cannot open \(path)")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                hasher.update(data: chunk)
            }
        } catch {
            throw Failure(description: "cannot read \(path): \(error.localizedDescription)")
        }
        return Hex.lowercase(hasher.finalize())
    }
}

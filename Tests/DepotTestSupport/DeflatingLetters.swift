import Foundation

/// Bytes that take a bundle build its longest: random letters from a 16-letter alphabet (`A` to `P`), which deflate
/// to about half, so the build deflates every chunk. Tests that kill a process while it bundles use them to keep it
/// bundling long enough to be caught at it.
package enum DeflatingLetters {
    /// `count` such letters, made from the system's random bytes off the concurrency pool.
    package static func make(count: Int) async -> [UInt8] {
        await OffPool.run("depot-test-letters") {
            var letters = Array(FileHandle(forReadingAtPath: "/dev/urandom")?.readData(ofLength: count) ?? Data())
            letters.withUnsafeMutableBytes { bytes in
                for index in bytes.indices { bytes[index] = 0x41 | (bytes[index] & 0x0F) }
            }
            return letters
        }
    }
}

import DepotArchives
import DepotTestSupport
import Foundation
import Testing

/// Valid archives with a few bytes changed, from a fixed seed: extraction either succeeds inside its
/// directory or fails with an `ArchiveError` and leaves nothing behind; it never traps or hangs.
@Suite struct ArchiveMutationTests {
    /// Mutations drawn from `SeededBytes`, so the same ones run every time.
    struct Mutations {
        var random: SeededBytes
        init(seed: UInt64) { random = SeededBytes(seed: seed) }
        mutating func next() -> Int { Int(truncatingIfNeeded: random.next() >> 1) }

        /// One to four edits: a flipped bit, a random byte, a cut, or a header field set to an extreme value.
        mutating func mutate(_ original: [UInt8]) -> [UInt8] {
            var bytes = original
            for _ in 0...(next() % 4) where !bytes.isEmpty {
                let position = next() % bytes.count
                switch next() % 5 {
                case 0: bytes[position] ^= UInt8(1 << (next() % 8))
                case 1: bytes[position] = UInt8(truncatingIfNeeded: next())
                case 2: bytes = Array(bytes.prefix(position))
                case 3: for offset in position..<min(bytes.count, position + 4) { bytes[offset] = 0xFF }
                default: for offset in position..<min(bytes.count, position + 8) { bytes[offset] = UInt8(ascii: "7") }
                }
            }
            return bytes
        }
    }

    static func samples() -> [(String, [UInt8])] {
        var tar = TarBuilder()
        tar.file("pack.json", Array("{\"productId\": \"p\"}".utf8))
        tar.file("Contents/maps/a.json", Array(String(repeating: "tile ", count: 300).utf8))
        tar.pax([("path", "Contents/long/" + String(repeating: "n", count: 120))])
        tar.file("ignored", Array("x".utf8))
        tar.end()
        var zip = ZipBuilder()
        zip.add("pack.json", Array("{\"productId\": \"p\"}".utf8))
        zip.add("Contents/maps/a.json", Array(String(repeating: "tile ", count: 300).utf8))
        zip.add("Contents/b.bin", (0..<2000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        return [("tar", tar.bytes), ("zip", zip.build())]
    }

    @Test(arguments: ["tar", "zip"])
    func mutatedArchivesExtractInsideOrFailCleanly(format: String) async throws {
        let original = try #require(Self.samples().first { $0.0 == format }?.1)
        try await withScratch { scratch in
            var mutations = Mutations(seed: format == "tar" ? 11 : 12)
            var refused = 0
            for round in 0..<1_500 {
                let archive = scratch + "/archive-\(round)"
                let out = scratch + "/out-\(round)"
                try writeFile(archive, mutations.mutate(original))
                do {
                    let entries = try Archive.extract(archive, into: out)
                    for path in tree(out) {
                        #expect(!path.hasPrefix("/") && !path.split(separator: "/").contains(".."), "\(path)")
                    }
                    #expect(entries.count <= 16)
                } catch {
                    refused += 1
                    #expect(tree(out).isEmpty, "round \(round): \(error) left \(tree(out))")
                }
                try? FileManager.default.removeItem(atPath: archive)
                try? FileManager.default.removeItem(atPath: out)
            }
            #expect(refused > 0)
            // Nothing was written outside the per-round folders.
            #expect(tree(scratch).isEmpty, "\(tree(scratch))")
        }
    }
}

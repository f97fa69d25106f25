import DepotTestSupport
import Foundation
import Testing

@testable import DepotBundles

/// `DeflateStreamOpener` against zlib as Python ships it: opened streams laid end to end before one complete
/// stream decode as one stream to the concatenation of their inputs.
@Suite struct DeflateStreamOpenerTests {
    /// Inputs of many sizes and kinds (empty, one byte, text, noise, runs), so that the last block ends at every
    /// bit position within its byte across the set, at every level.
    static func inputs() -> [[UInt8]] {
        var random = SeededBytes(seed: 2026)
        var inputs: [[UInt8]] = [[], [0x41], Array(repeating: 0, count: 70_000)]
        for index in 0..<60 {
            let count = [1, 2, 7, 100, 1_000, 4_096, 33_000, 70_000, 200_000][index % 9] + index
            inputs.append(index % 3 == 0 ? random.bytes(count) : TestData.text(count: count, seed: UInt64(index)))
        }
        return inputs
    }

    @Test(arguments: [1, 6, 9])
    func openedStreamsFollowedByACompleteOneDecodeAsOne(level: Int) async throws {
        let inputs = Self.inputs()
        let deflater = try BlockDeflater(level: level, maximumInput: inputs.map(\.count).max()!)
        let opener = try DeflateStreamOpener()
        var joined: [UInt8] = []
        var expected: [UInt8] = []
        for (index, input) in inputs.enumerated() {
            var stream: [UInt8] = []
            try input.withUnsafeBytes { try deflater.deflate($0, appendingTo: &stream) }
            if index < inputs.count - 1 {
                try opener.open(&stream)
                #expect(Array(stream.suffix(4)) == [0x00, 0x00, 0xFF, 0xFF], "input \(index)")
            }
            joined += stream
            expected += input
        }
        try await withTemporaryDirectory { dir in
            try Data(joined).write(to: URL(fileURLWithPath: dir + "/joined.deflate"))
            try Data(expected).write(to: URL(fileURLWithPath: dir + "/expected.bin"))
            let check = try await ExternalTool.run(
                "/usr/bin/env",
                [
                    "python3", "-c",
                    "import sys,zlib\n"
                        + "d=zlib.decompressobj(-15)\n"
                        + "out=d.decompress(open(sys.argv[1],'rb').read())+d.flush()\n"
                        + "ok=out==open(sys.argv[2],'rb').read() and d.eof and not d.unused_data\n"
                        + "print('same' if ok else 'different', len(out))",
                    dir + "/joined.deflate", dir + "/expected.bin",
                ])
            #expect(check.output.hasPrefix("same \(expected.count)"), "\(check.combined)")
        }
    }

    /// What is not a complete deflate stream is refused, not opened.
    @Test func refusesWhatIsNotACompleteStream() throws {
        let deflater = try BlockDeflater(level: 6, maximumInput: 100_000)
        let opener = try DeflateStreamOpener()
        var stream: [UInt8] = []
        let text = TestData.text(count: 100_000, seed: 3)
        try text.withUnsafeBytes { try deflater.deflate($0, appendingTo: &stream) }
        var truncated = Array(stream.prefix(stream.count / 2))
        #expect(throws: BundleStoreError.self) { try opener.open(&truncated) }
        var garbage: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF]
        #expect(throws: BundleStoreError.self) { try opener.open(&garbage) }
        var empty: [UInt8] = []
        #expect(throws: BundleStoreError.self) { try opener.open(&empty) }
        // The opener is still usable after a refusal.
        try opener.open(&stream)
        #expect(Array(stream.suffix(4)) == [0x00, 0x00, 0xFF, 0xFF])
    }
}

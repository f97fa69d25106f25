import Foundation

/// Writes content packs to disk for tests.
enum PackFixture {
    static let manifest = #"""
        {"productId": "com.example.game.level1", "version": "1.0",
         "publishedAt": "2026-03-01T09:00:00Z", "title": "Level 1"}
        """#

    /// Writes `pack.json` and each file under `Contents/`, in the order given, and returns `directory`.
    @discardableResult
    static func write(
        at directory: String, manifest: String = manifest, files: [(String, [UInt8])],
        modificationTime: Int? = nil, mode: Int = 0o644
    ) throws -> String {
        let fm = FileManager.default
        try fm.createDirectory(atPath: directory + "/Contents", withIntermediateDirectories: true)
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: directory + "/pack.json"))
        for (path, bytes) in files {
            let full = directory + "/Contents/" + path
            try fm.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true
            )
            try Data(bytes).write(to: URL(fileURLWithPath: full))
            _ = chmod(full, mode_t(mode))
            if let modificationTime { try setModificationTime(full, seconds: modificationTime) }
        }
        return directory
    }

    static func setModificationTime(_ path: String, seconds: Int) throws {
        var times = [
            timespec(tv_sec: seconds, tv_nsec: 123), timespec(tv_sec: seconds, tv_nsec: 456),
        ]
        guard utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw CocoaError(.fileWriteUnknown)
        }
    }

    /// A mix that exercises both methods: text (deflated), random bytes (stored), an empty file.
    static func mixedFiles(seed: UInt64 = 1) -> [(String, [UInt8])] {
        var random = SeededRandom(seed: seed)
        return [
            ("levels/level1.json", TestData.text(count: 300_000, seed: seed)),
            ("levels/small.txt", Array("hello, depot\n".utf8)),
            ("media/noise.bin", random.bytes(200_000)),
            ("media/big-text.txt", TestData.text(count: 2_500_000, seed: seed + 1)),
            ("empty.dat", []),
            ("Ünïcödé/naïve café.txt", Array("crème brûlée\n".utf8)),
        ]
    }
}

/// SplitMix64: reproducible pseudo-random bytes.
struct SeededRandom {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count + 8)
        while out.count < count {
            let value = next()
            for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> shift)) }
        }
        return Array(out.prefix(count))
    }
}

enum TestData {
    /// Compressible text: words drawn from a small vocabulary.
    static func text(count: Int, seed: UInt64) -> [UInt8] {
        let words = [
            "level", "enemy", "spawn", "treasure", "door", "key", "boss", "health", "coin", "map",
            "{", "}", "\"x\":", "\"y\":", "12", "345", "\n",
        ]
        var random = SeededRandom(seed: seed)
        var out: [UInt8] = []
        out.reserveCapacity(count + 16)
        while out.count < count {
            out.append(contentsOf: words[Int(random.next() % UInt64(words.count))].utf8)
            out.append(0x20)
        }
        return Array(out.prefix(count))
    }
}

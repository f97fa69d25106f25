import DepotTestSupport
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
        var random = SeededBytes(seed: seed)
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

enum TestData {
    /// Compressible text: words drawn from a small vocabulary.
    static func text(count: Int, seed: UInt64) -> [UInt8] {
        let words = [
            "level", "enemy", "spawn", "treasure", "door", "key", "boss", "health", "coin", "map",
            "{", "}", "\"x\":", "\"y\":", "12", "345", "\n",
        ]
        var random = SeededBytes(seed: seed)
        var out: [UInt8] = []
        out.reserveCapacity(count + 16)
        while out.count < count {
            out.append(contentsOf: words[Int(random.next() % UInt64(words.count))].utf8)
            out.append(0x20)
        }
        return Array(out.prefix(count))
    }
}

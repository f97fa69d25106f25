import Foundation

/// The inputs kept for a libFuzzer target of `Fuzz/run.sh`: its seeds (`Fuzz/Corpus/TARGET`) and every input a
/// campaign found breaking an invariant (`Fuzz/Regressions/TARGET`, kept with the fix), so the test suite
/// replays them through the same harness.
package enum FuzzInputs {
    /// The repository's root, found from this file's place in it.
    package static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The inputs kept for `target`, named by their path in the repository, seeds first, each folder sorted.
    package static func inputs(_ target: String) throws -> [(name: String, bytes: [UInt8])] {
        var found: [(String, [UInt8])] = []
        for folder in ["Fuzz/Corpus/\(target)", "Fuzz/Regressions/\(target)"] {
            let directory = root.appendingPathComponent(folder)
            guard FileManager.default.fileExists(atPath: directory.path) else { continue }
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            where !name.hasPrefix(".") {
                found.append(("\(folder)/\(name)", Array(try Data(contentsOf: directory.appendingPathComponent(name)))))
            }
        }
        return found
    }
}

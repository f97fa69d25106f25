import DepotTestSupport
import Foundation
import Testing

/// A directory `/tmp/DepotArchivesTests-<test>-<random>` for one test, removed afterwards.
func withScratch<R>(_ test: String = #function, _ body: (String) async throws -> R) async throws -> R {
    let name = test.prefix { $0 != "(" }.filter { $0.isLetter || $0.isNumber }
    let path = NSTemporaryDirectory() + "DepotArchivesTests-\(name)-\(UInt32.random(in: .min ... .max))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// Writes bytes to a file, creating its directory.
func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// A file's bytes.
func readFile(_ path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// Every path under `root` (files and directories), relative, sorted.
func tree(_ root: String) -> [String] {
    (FileManager.default.subpaths(atPath: root) ?? []).sorted()
}

/// Runs a Python script with arguments to its end; throws, with what it printed, when it fails.
func runPython(_ script: String, _ arguments: [String]) async throws {
    guard let python = ExternalTool.require("python3") else { throw PythonMissing() }
    try await ExternalTool.runSucceeding(python, ["-c", script] + arguments)
}

/// python3 is not installed (recorded as a failure in CI, a skip elsewhere).
struct PythonMissing: Error {}

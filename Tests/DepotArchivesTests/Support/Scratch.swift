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

/// External programs that make archives: `zip`, `tar`, `gzip`, `python3`.
enum Tool {
    /// The program's path, or nil (recorded as a failure in CI, a skip with a message elsewhere).
    static func require(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") + ["/usr/bin", "/bin"] {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        if ProcessInfo.processInfo.environment["CI"] != nil {
            Issue.record("\(name) is required in CI but was not found on PATH", sourceLocation: sourceLocation)
        } else {
            print("skipping: \(name) is not installed")
        }
        return nil
    }

    /// Runs a program in `directory`; fails the test with its output when it exits nonzero.
    static func run(_ executable: String, _ arguments: [String], in directory: String? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            throw ToolFailed(
                description: "\(executable) \(arguments) exited \(process.terminationStatus): "
                    + String(decoding: output, as: UTF8.self))
        }
    }

    /// Runs a Python script with arguments.
    static func python(_ script: String, _ arguments: [String]) throws {
        guard let python = require("python3") else { throw ToolMissing() }
        try run(python, ["-c", script] + arguments)
    }

    struct ToolFailed: Error, CustomStringConvertible { var description: String }
    struct ToolMissing: Error {}
}

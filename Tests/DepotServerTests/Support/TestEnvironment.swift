import DepotTestSupport
import Foundation
import Testing

/// A scratch directory named after the test, removed at the end.
struct ScratchDirectory {
    let path: String

    init(_ name: String) throws {
        let safe = name.map { $0.isLetter || $0.isNumber ? $0 : "-" }
        path = NSTemporaryDirectory() + "depot-\(String(safe))-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// Writes a file, creating parent directories.
    func write(_ relative: String, _ bytes: [UInt8]) throws {
        let full = (path as NSString).appendingPathComponent(relative)
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: full))
    }

    func write(_ relative: String, _ text: String) throws { try write(relative, Array(text.utf8)) }
}

/// External programs the live tests drive (curl, wget, aria2c, python3, unzip).
enum ExternalTool {
    /// The tool's path, or nil. In CI (`CI` set) a missing tool is a test failure, never a silent pass;
    /// elsewhere the test is skipped with a message saying how to enable it (`install`, when given: the
    /// command that installs it; otherwise its Debian package).
    static func require(
        _ name: String, install: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) -> String? {
        for directory in ["/usr/bin", "/usr/local/bin", "/bin", "/usr/sbin"]
            + (ProcessInfo.processInfo.environment["PATH"] ?? "")
            .split(separator: ":").map(String.init)
        {
            let candidate = (directory as NSString).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        if ProcessInfo.processInfo.environment["CI"] != nil {
            Issue.record("\(name) is required in CI but was not found on PATH", sourceLocation: sourceLocation)
        } else {
            let package = ["aria2c": "aria2", "envsubst": "gettext-base"][name] ?? name
            print("skipping: \(name) not installed (\(install ?? "apt-get install \(package)") to run this test)")
        }
        return nil
    }

    /// Runs a program to completion; returns its exit status, standard output and standard error.
    @discardableResult
    static func run(
        _ path: String, _ arguments: [String], in directory: String? = nil
    ) async throws
        -> (status: Int32, output: String, error: String)
    {
        try await OffPool.run { try runNow(path, arguments, in: directory) }
    }

    private static func runNow(
        _ path: String, _ arguments: [String], in directory: String?
    ) throws
        -> (status: Int32, output: String, error: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let output = Pipe()
        // Standard error goes to a file: a child that filled one pipe while the other was read would never exit.
        let errorPath = NSTemporaryDirectory() + "depot-tool-\(UUID().uuidString).err"
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: errorPath) }
        let errorFile = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        defer { try? errorFile.close() }
        process.standardOutput = output
        process.standardError = errorFile
        try process.run()
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errData = FileManager.default.contents(atPath: errorPath) ?? Data()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }
}

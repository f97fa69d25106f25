import Foundation
import Testing

/// External programs the tests drive (zip, tar, unzip, curl, wget, aria2c, python3, nginx, the `depot`
/// binary): found on the search path, and run to their end without holding a thread.
package enum ExternalTool {
    /// What a program run to its end printed, and how it ended.
    package struct Output: Sendable {
        /// Its exit status (the signal's number when `bySignal`).
        package var status: Int32
        /// Whether a signal ended it.
        package var bySignal: Bool
        /// Its standard output.
        package var output: String
        /// Its standard error.
        package var error: String

        /// Standard output followed by standard error, for failure messages.
        package var combined: String { error.isEmpty ? output : output + error }
    }

    /// A program that ended other than with status 0.
    package struct Failed: Error, CustomStringConvertible {
        /// The program, its arguments, its status and everything it printed.
        package var description: String
    }

    /// The tool's path, or nil. In CI (`CI` set) a missing tool is a test failure, never a silent pass;
    /// elsewhere the test is skipped with a message saying how to enable it (`install`, when given: the
    /// command that installs it; otherwise its Debian package).
    package static func require(
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

    /// Runs a program to its end, in `directory` when given, with `environment` instead of this process's when
    /// given and `input` on its standard input (else nothing); returns how it ended and what it printed.
    ///
    /// Its output and errors go to files, read once it ended: a pipe's write end can be inherited by a process
    /// another test starts at the same moment, and a read to the pipe's end would then wait for that process.
    @discardableResult
    package static func run(
        _ path: String, _ arguments: [String], in directory: String? = nil, environment: [String: String]? = nil,
        input: String? = nil
    ) async throws -> Output {
        let files = NSTemporaryDirectory() + "depot-tool-\(UUID().uuidString)"
        let (inputPath, outputPath, errorPath) = (files + ".in", files + ".out", files + ".err")
        defer {
            for file in [inputPath, outputPath, errorPath] { try? FileManager.default.removeItem(atPath: file) }
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if let environment { process.environment = environment }
        let exit: ProcessExit
        do {
            let output = try Self.create(outputPath, holding: "")
            defer { try? output.close() }
            let errors = try Self.create(errorPath, holding: "")
            defer { try? errors.close() }
            process.standardOutput = output
            process.standardError = errors
            if let input {
                let inputHandle = try Self.create(inputPath, holding: input, forReading: true)
                defer { try? inputHandle.close() }
                process.standardInput = inputHandle
                exit = try ProcessExit.run(process)
            } else {
                process.standardInput = FileHandle.nullDevice
                exit = try ProcessExit.run(process)
            }
        }
        let status = await exit.wait()
        return Output(
            status: status.code, bySignal: status.bySignal,
            output: String(decoding: FileManager.default.contents(atPath: outputPath) ?? Data(), as: UTF8.self),
            error: String(decoding: FileManager.default.contents(atPath: errorPath) ?? Data(), as: UTF8.self))
    }

    /// Runs a program to its end as `run` does; throws `Failed`, with everything it printed, unless it exited
    /// with status 0.
    @discardableResult
    package static func runSucceeding(
        _ path: String, _ arguments: [String], in directory: String? = nil, environment: [String: String]? = nil,
        input: String? = nil
    ) async throws -> Output {
        let result = try await run(path, arguments, in: directory, environment: environment, input: input)
        guard result.status == 0, !result.bySignal else {
            throw Failed(description: "\(path) \(arguments) exited \(result.status): \(result.combined)")
        }
        return result
    }

    /// A new file at `path` holding `text`, opened for writing (or for reading, with `forReading`).
    private static func create(_ path: String, holding text: String, forReading: Bool = false) throws -> FileHandle {
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)),
            let handle = forReading ? FileHandle(forReadingAtPath: path) : FileHandle(forWritingAtPath: path)
        else {
            throw Failed(description: "the file \(path) could not be made for a child process")
        }
        return handle
    }
}

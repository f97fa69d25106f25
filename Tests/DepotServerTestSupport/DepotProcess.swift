import DepotTestSupport
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The real `depot serve` binary as a child process on a free port (`--port 0`, the port read back from the
/// `listening address=http://127.0.0.1:PORT` log line), which a test may kill with any signal.
///
/// Standard error is drained continuously on a thread of its own (a full pipe would stall the server) and
/// kept for failure messages; nothing here blocks the Swift concurrency pool.
final class DepotProcess: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The child's process id.
    let pid: Int32
    private let process: ProcessBox
    private let log: LogSink

    /// `<repo>/.build/debug/depot`, the repository found from `filePath` (a file or a folder inside it);
    /// `swift build --build-tests` builds it.
    static func debugBinary(filePath: String = #filePath) -> String {
        RepositoryRoot.containing(filePath) + "/.build/debug/depot"
    }

    /// Starts `binary serve --port 0` with `arguments` after it and `environment` added to this process's
    /// environment (`DEPOT_LOG_LEVEL=info`, so that the listening line is written), and waits (up to
    /// `timeout`) until it listens. A child that exits first, or never says where it listens, is killed and
    /// reported as a `Failure` carrying its log.
    static func start(
        binary: String, arguments: [String], environment: [String: String], timeout: Duration = .seconds(300)
    ) async throws -> DepotProcess {
        let server = try launch(binary: binary, arguments: arguments, environment: environment)
        do {
            _ = try await server.listeningPort(timeout: timeout)
        } catch {
            server.killIfRunning()
            _ = await server.waitForExit(timeout: .seconds(10))
            throw error
        }
        return server
    }

    /// Starts the child and returns at once, without waiting for it to listen.
    static func launch(binary: String, arguments: [String], environment: [String: String]) throws -> DepotProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--port", "0"] + arguments
        var merged = ProcessInfo.processInfo.environment
        merged["DEPOT_LOG_LEVEL"] = "info"
        merged.merge(environment) { _, new in new }
        process.environment = merged
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let log = LogSink()
        let descriptor = errors.fileHandleForReading.fileDescriptor
        let reader = Thread {
            // The pipe object owns the descriptor: keep it alive while reading.
            withExtendedLifetime(errors) { log.drain(descriptor) }
        }
        reader.name = "depot-serve-stderr"
        reader.start()
        return DepotProcess(pid: process.processIdentifier, process: ProcessBox(process), log: log)
    }

    private init(pid: Int32, process: ProcessBox, log: LogSink) {
        self.pid = pid
        self.process = process
        self.log = log
    }

    /// The port the server listens on, once it says so; a `Failure` with the log when it exits first or
    /// does not say so within `timeout`.
    func listeningPort(timeout: Duration = .seconds(300)) async throws -> Int {
        let started = ContinuousClock.now
        while true {
            if let port = log.port { return port }
            if log.ended || !process.isRunning {
                // Give the reader a moment to collect the last lines.
                try? await Task.sleep(for: .milliseconds(100))
                if let port = log.port { return port }
                throw Failure(description: "depot serve ended before it listened; its log:\n\(log.text)")
            }
            if ContinuousClock.now - started > timeout {
                throw Failure(description: "depot serve did not listen within \(timeout); its log:\n\(log.text)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The port, when the server has said where it listens.
    var port: Int? { log.port }

    /// Everything the server wrote to standard error so far.
    var logText: String { log.text }

    /// How many complete lines the server wrote to standard error so far.
    var logLineCount: Int { log.lineCount }

    /// Whether the process still runs.
    var isRunning: Bool { process.isRunning }

    /// Sends `signal` to the server.
    func kill(_ signal: Int32) {
        _ = Glibc.kill(pid, signal)
    }

    /// Waits (without blocking a thread) until the process has exited; nil when it still runs after `timeout`.
    func waitForExit(timeout: Duration = .seconds(30)) async -> (reason: Process.TerminationReason, status: Int32)? {
        let started = ContinuousClock.now
        while process.isRunning {
            if ContinuousClock.now - started > timeout { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return process.termination
    }

    /// Kills the process (SIGKILL) if it still runs: for cleanup paths.
    func killIfRunning() {
        if process.isRunning { kill(SIGKILL) }
    }
}

/// `Process` is not Sendable; this box only reads its state after `run()`.
private final class ProcessBox: @unchecked Sendable {
    let process: Process
    init(_ process: Process) { self.process = process }
    var isRunning: Bool { process.isRunning }
    var termination: (reason: Process.TerminationReason, status: Int32) {
        (process.terminationReason, process.terminationStatus)
    }
}

/// The child's standard error: kept whole, and scanned for the line that says where it listens.
private final class LogSink: Sendable {
    private struct State {
        var bytes: [UInt8] = []
        var port: Int?
        var ended = false
    }
    private let state = Mutex(State())

    var port: Int? { state.withLock { $0.port } }
    var ended: Bool { state.withLock { $0.ended } }
    var text: String { state.withLock { String(decoding: $0.bytes, as: UTF8.self) } }
    var lineCount: Int { state.withLock { $0.bytes.lazy.filter { $0 == 10 }.count } }

    /// Reads `descriptor` until end of file (blocking: run on a thread of its own).
    func drain(_ descriptor: Int32) {
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            state.withLock { state in
                state.bytes.append(contentsOf: chunk[..<count])
                if state.port == nil { state.port = Self.listeningPort(in: state.bytes) }
            }
        }
        state.withLock { $0.ended = true }
    }

    /// The port of `listening address=http://127.0.0.1:PORT` (swift-log's stream handler writes the
    /// metadata before the message), or of the JSON line's `"address":"http://127.0.0.1:PORT"`; `https` as well.
    static func listeningPort(in bytes: [UInt8]) -> Int? {
        let text = String(decoding: bytes, as: UTF8.self)
        for line in text.split(separator: "\n") where line.contains("listening") {
            let prefixes = ["address=http://", "address=https://", "\"address\":\"http://", "\"address\":\"https://"]
            guard let range = prefixes.lazy.compactMap({ line.range(of: $0) }).first else {
                continue
            }
            let rest = line[range.upperBound...]
            guard let colon = rest.firstIndex(of: ":") else { continue }
            let digits = rest[rest.index(after: colon)...].prefix { $0.isNumber }
            if let port = Int(digits), port > 0 { return port }
        }
        return nil
    }
}

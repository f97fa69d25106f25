import DepotTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A `depot dev appstore` or `depot dev googleplay` process, and the JSON object it printed as its first line
/// (the configuration that points Depot at it).
final class DevDoubleProcess: @unchecked Sendable {
    let process: Process
    let exit: ProcessExit
    let settings: [String: Any]

    init(process: Process, exit: ProcessExit, settings: [String: Any]) {
        self.process = process
        self.exit = exit
        self.settings = settings
    }

    /// The port of `url`, `http://HOST:PORT`.
    static func port(of url: String) -> Int { Int(url.split(separator: ":").last ?? "") ?? 0 }

    /// Asks the double to stop (SIGTERM), without waiting: for cleanup paths.
    func terminate() {
        if !exit.hasEnded { kill(process.processIdentifier, SIGTERM) }
    }

    /// Stops the double and waits until it has exited.
    func stop() async {
        terminate()
        _ = await exit.wait()
    }

    /// Starts `depot dev <command> --port 0` with the repository's `Config/` and `dataDirectory`, and reads its
    /// first line.
    static func start(_ command: String, dataDirectory: String, arguments: [String] = []) async throws -> DevDoubleProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: DepotProcess.debugBinary())
        process.arguments =
            ["dev", command, "--port", "0", "--config", RepositoryRoot.path + "/Config", "--data-dir", dataDirectory] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let exit = try ProcessExit.run(process)
        let reader = output.fileHandleForReading
        // The first line, read off the concurrency pool (the read blocks until the double listens).
        let line = try await OffPool.run { () throws -> String in
            var bytes: [UInt8] = []
            while true {
                let chunk = reader.readData(ofLength: 1)
                if chunk.isEmpty || chunk.first == UInt8(ascii: "\n") { break }
                bytes.append(contentsOf: chunk)
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        guard let settings = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            if process.isRunning { kill(process.processIdentifier, SIGTERM) }
            throw CancellationError()
        }
        return DevDoubleProcess(process: process, exit: exit, settings: settings)
    }
}

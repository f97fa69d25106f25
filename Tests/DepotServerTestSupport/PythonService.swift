import DepotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A small Python program serving on 127.0.0.1 (it prints its port on its first line of output) and
/// logging what it saw as JSON lines: the cutting proxy and the hostile server of the client tests.
final class PythonService: Sendable {
    /// The port it listens on.
    let port: Int
    /// Its log of JSON lines.
    let logPath: String
    private let pid: Int32

    private init(port: Int, logPath: String, pid: Int32) {
        self.port = port
        self.logPath = logPath
        self.pid = pid
    }

    /// Starts `python3 -c script arguments...`, waiting (up to a minute) for the port line.
    static func start(_ python: String, script: String, arguments: [String], logPath: String) async throws -> PythonService {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-u", "-c", script] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        let descriptor = output.fileHandleForReading.fileDescriptor
        let line = await OffPool.run { () -> String in
            var bytes: [UInt8] = []
            var byte: UInt8 = 0
            while read(descriptor, &byte, 1) == 1, byte != 10 { bytes.append(byte) }
            return String(decoding: bytes, as: UTF8.self)
        }
        guard let port = Int(line) else {
            process.terminate()
            throw PythonFailure(description: "the Python service did not say its port: \(line)")
        }
        withExtendedLifetime(output) {}
        return PythonService(port: port, logPath: logPath, pid: process.processIdentifier)
    }

    /// The JSON lines logged so far.
    func log() throws -> [[String: Any]] {
        guard let data = FileManager.default.contents(atPath: logPath) else { return [] }
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// Stops it.
    func stop() { _ = kill(pid, SIGKILL) }

    struct PythonFailure: Error, CustomStringConvertible {
        var description: String
    }
}

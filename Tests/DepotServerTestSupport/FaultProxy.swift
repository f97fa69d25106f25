import DepotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `Tests/Tools/fault_proxy.py` as a child process: a TCP proxy a test places between Depot and a dependency
/// (PostgreSQL, the S3 gateway, a store double, a purge endpoint) and switches, while the test runs, between
/// forwarding and the faults a dependency shows in production.
final class FaultProxy: Sendable {
    /// What the proxy does with connections.
    enum Mode: Sendable, CustomStringConvertible {
        /// Forwards both ways.
        case pass
        /// Stops listening and resets open connections: a stopped server.
        case refuse
        /// Accepts connections and forwards nothing either way until the mode changes: a network that stopped
        /// answering.
        case blackhole
        /// Resets open connections and every new one.
        case reset
        /// Forwards with `latency` per chunk at `bytesPerSecond`.
        case slow(latency: Duration, bytesPerSecond: Int)

        var query: String {
            switch self {
            case .pass: "name=pass"
            case .refuse: "name=refuse"
            case .blackhole: "name=blackhole"
            case .reset: "name=reset"
            case .slow(let latency, let rate):
                "name=slow&latency=\(Double(latency.components.attoseconds) / 1e18 + Double(latency.components.seconds))&rate=\(rate)"
            }
        }

        var description: String { query }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The port Depot connects to.
    let port: Int
    /// The proxy's control port.
    let controlPort: Int
    private let pid: Int32

    private init(port: Int, controlPort: Int, pid: Int32) {
        self.port = port
        self.controlPort = controlPort
        self.pid = pid
    }

    deinit {
        _ = kill(pid, SIGKILL)
    }

    /// Starts a proxy to `upstreamPort` on 127.0.0.1, in `pass` mode; nil (after recording why, in CI) without
    /// python3.
    static func start(upstreamPort: Int) async throws -> FaultProxy? {
        guard let python = ExternalTool.require("python3") else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-u", RepositoryRoot.path + "/Tests/Tools/fault_proxy.py", "--upstream", "127.0.0.1:\(upstreamPort)"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let descriptor = output.fileHandleForReading.fileDescriptor
        let line = await OffPool.run { () -> String in
            var bytes: [UInt8] = []
            var byte: UInt8 = 0
            while read(descriptor, &byte, 1) == 1, byte != 10 { bytes.append(byte) }
            return String(decoding: bytes, as: UTF8.self)
        }
        withExtendedLifetime(output) {}
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let port = object["port"] as? Int, let control = object["control"] as? Int
        else {
            process.terminate()
            throw Failure(description: "the fault proxy did not say its ports: \(line)")
        }
        return FaultProxy(port: port, controlPort: control, pid: process.processIdentifier)
    }

    /// Puts `mode` in force; returns once it is.
    func set(_ mode: Mode) async throws {
        let client = try RawHTTPClient(port: controlPort)
        let response = try await client.request("GET /mode?\(mode.query) HTTP/1.1\r\nHost: proxy\r\n\r\n")
        guard response.status == 200 else {
            throw Failure(description: "the fault proxy refused mode \(mode): \(response.status) \(response.text)")
        }
    }

    /// Stops the proxy.
    func stop() {
        _ = kill(pid, SIGKILL)
    }
}

import DepotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A real nginx running `deploy/nginx/depot-edge.conf.template` in front of a Depot origin, rendered with
/// envsubst exactly as the README says, on a free port, with its cache in a scratch directory; stopped
/// (SIGQUIT, then SIGKILL if it lingers) and removed at the end.
struct NginxEdge {
    let port: Int
    let cacheDirectory: String

    /// The template in the repository.
    static var templatePath: String {
        RepositoryRoot.path + "/deploy/nginx/depot-edge.conf.template"
    }

    struct StartError: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts nginx in front of `originPort` with `secret`, runs `body`, stops nginx. Skips (or fails in CI)
    /// when nginx or envsubst is missing.
    static func with(
        _ name: String = #function, originPort: Int, secret: String, body: (NginxEdge) async throws -> Void
    ) async throws {
        guard let nginx = ExternalTool.require("nginx"), let envsubst = ExternalTool.require("envsubst") else { return }
        let scratch = try ScratchDirectory("edge-" + name)
        defer { scratch.remove() }
        var lastFailure = ""
        // The port is chosen free, then bound by nginx: another process may take it in between, so a start
        // that fails on the address is tried again with another port.
        for _ in 0..<5 {
            let port = try freePort()
            let cache = scratch.path + "/cache-\(port)"
            try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
            let rendered = try await render(
                envsubst: envsubst,
                variables: [
                    "EDGE_PORT": "127.0.0.1:\(port)", "DEPOT_ORIGIN": "127.0.0.1:\(originPort)",
                    "CACHE_DIR": cache, "EDGE_SECRET": secret,
                ])
            let configPath = scratch.path + "/edge-\(port).conf"
            try Data(rendered.utf8).write(to: URL(fileURLWithPath: configPath))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: nginx)
            process.arguments = ["-c", configPath, "-g", "daemon off;"]
            // Standard error goes to a file, read once nginx stopped: a pipe's write end inherited by a process
            // another test starts at the same moment would keep a read to its end waiting.
            let errorsPath = cache + "/stderr.log"
            guard FileManager.default.createFile(atPath: errorsPath, contents: nil),
                let errors = FileHandle(forWritingAtPath: errorsPath)
            else { throw StartError(description: "cannot make \(errorsPath)") }
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            let edge = try NginxProcess(starting: process)
            try? errors.close()
            guard await waitUntilListening(port: port, process: edge) else {
                await edge.stop()
                lastFailure =
                    ((try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? "")
                    + ((try? String(contentsOfFile: cache + "/error.log", encoding: .utf8)) ?? "")
                if lastFailure.contains("Address already in use") { continue }
                throw StartError(description: "nginx did not start: \(lastFailure)")
            }
            do {
                try await body(NginxEdge(port: port, cacheDirectory: cache))
            } catch {
                await edge.stop()
                throw error
            }
            await edge.stop()
            return
        }
        throw StartError(description: "nginx found no free port: \(lastFailure)")
    }

    /// The template rendered by `envsubst` with the four placeholders named, as the README runs it; without
    /// `namingPlaceholders`, as a careless run would (every `$name`, nginx's own variables too, replaced).
    static func render(envsubst: String, variables: [String: String], namingPlaceholders: Bool = true) async throws -> String {
        let template = try String(contentsOfFile: templatePath, encoding: .utf8)
        return try await ExternalTool.run(
            envsubst, namingPlaceholders ? ["${EDGE_PORT} ${DEPOT_ORIGIN} ${CACHE_DIR} ${EDGE_SECRET}"] : [],
            environment: variables.merging(["PATH": "/usr/bin:/bin"]) { a, _ in a }, input: template
        ).output
    }

    /// Waits until something accepts connections on the port, or the process has exited.
    private static func waitUntilListening(port: Int, process: NginxProcess) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if !process.isRunning { return false }
            if (try? RawHTTPClient(port: port)) != nil { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// A port nothing listens on right now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw StartError(description: "socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw StartError(description: "bind failed") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw StartError(description: "getsockname failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The edge's access log so far (one line per answer, with the cache and upstream status).
    var accessLog: String { (try? String(contentsOfFile: cacheDirectory + "/access.log", encoding: .utf8)) ?? "" }

    /// Base URL of the edge.
    var base: String { "http://127.0.0.1:\(port)" }
}

/// The nginx master process; stopped gracefully (SIGQUIT), then killed if it does not exit, and awaited without
/// holding a thread.
private final class NginxProcess: Sendable {
    private let pid: Int32
    private let exit: ProcessExit

    /// Starts `process` (configured, not yet run).
    init(starting process: Process) throws {
        exit = try ProcessExit.run(process)
        pid = process.processIdentifier
    }

    var isRunning: Bool { !exit.hasEnded }

    /// SIGQUIT, then SIGKILL if nginx still runs after 30 s; returns once it has exited.
    func stop() async {
        guard !exit.hasEnded else { return }
        kill(pid, SIGQUIT)
        let deadline = ContinuousClock.now + .seconds(30)
        while !exit.hasEnded, ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if !exit.hasEnded { kill(pid, SIGKILL) }
        _ = await exit.wait()
    }
}

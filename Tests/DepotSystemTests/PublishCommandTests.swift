@testable import DepotServerTestSupport
import DepotCore
import DepotLedger
import DepotTestSupport
import Foundation
import Testing

@testable import DepotServer

/// `depot publish` end to end against a live server: it packs, uploads with tus, waits until staged and
/// publishes; through a proxy that cuts its connection part way it resumes in the same run, and after a
/// kill -9 in the middle of an upload a rerun resumes the same upload instead of starting over.
@Suite("depot publish against a live server")
struct PublishCommandTests {
    static let product = "com.example.mission"

    /// A TCP proxy in front of Depot. Once `limit` bytes went upstream in all, the connection carrying them is
    /// cut (`cut`: both sides closed) or stalled (`stall`: nothing more forwarded, the client's bytes read
    /// and dropped until it goes away, then both sides closed); later connections pass untouched.
    static let proxy = #"""
        import socket, sys, threading
        server_port, mode, limit = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
        listener = socket.socket(); listener.bind(("127.0.0.1", 0)); listener.listen(16)
        print("PORT " + str(listener.getsockname()[1]), flush=True)
        state = {"forwarded": 0, "tripped": False}
        lock = threading.Lock()
        def close(*sockets):
            for s in sockets:
                try: s.shutdown(socket.SHUT_RDWR)
                except OSError: pass
        def pump(src, dst, upstream):
            limited = upstream
            try:
                while True:
                    data = src.recv(65536)
                    if not data: break
                    if limited:
                        with lock:
                            if state["tripped"]:
                                limited = False
                            else:
                                room = limit - state["forwarded"]
                                if room <= len(data):
                                    state["tripped"] = True
                                    dst.sendall(data[:room]); state["forwarded"] += room
                                    print("TRIPPED", flush=True)
                                    if mode == "cut": break
                                    while src.recv(65536): pass
                                    break
                                state["forwarded"] += len(data)
                    dst.sendall(data)
            except OSError:
                pass
            close(src, dst)
        while True:
            downstream, _ = listener.accept()
            upstream = socket.create_connection(("127.0.0.1", server_port))
            threading.Thread(target=pump, args=(downstream, upstream, True), daemon=True).start()
            threading.Thread(target=pump, args=(upstream, downstream, False), daemon=True).start()
        """#

    @Test func publishesResumesAfterACutAndAfterAKill() async throws {
        guard let python = ExternalTool.require("python3") else { return }
        let binary = DepotProcess.debugBinary(filePath: #filePath)
        try await UploadServer.with(engine: .sqlite) { server in
            try await server.createProduct(Self.product, title: "Mission")
            try server.scratch.write("proxy.py", Self.proxy)
            let state = server.scratch.path + "/state"

            // 1. A cut in the middle of the upload: the same run resumes and publishes.
            let folder1 = try Self.writePack(server, version: "1.0")
            let cutProxy = try RunningProcess(python, [server.scratch.path + "/proxy.py", "\(server.port)", "cut", "\(3 << 20)"])
            defer { cutProxy.kill() }
            let port1 = try await cutProxy.firstLine(startingWith: "PORT ")
            let run1 = try RunningProcess(
                binary,
                [
                    "publish", folder1, "--product", Self.product, "--version", "1.0", "--server", "http://127.0.0.1:\(port1)",
                    "--key", UploadServer.token, "--state-dir", state, "--publish",
                ])
            let status1 = try await run1.exitStatus()
            #expect(status1 == 0, "\(run1.text)")
            #expect(run1.text.contains("upload cut"), "\(run1.text)")
            #expect(run1.text.contains("published \(Self.product) 1.0"), "\(run1.text)")
            #expect(try await cutProxy.firstLine(startingWith: "TRIPPED") == "")
            #expect(try server.server.version(Self.product).version == "1.0")

            // 2. kill -9 while the upload is stalled half way; a rerun resumes the same upload.
            let folder2 = try Self.writePack(server, version: "1.1")
            let stallProxy = try RunningProcess(python, [server.scratch.path + "/proxy.py", "\(server.port)", "stall", "\(3 << 20)"])
            defer { stallProxy.kill() }
            let port2 = try await stallProxy.firstLine(startingWith: "PORT ")
            let arguments = [
                "publish", folder2, "--product", Self.product, "--version", "1.1", "--server", "http://127.0.0.1:\(port2)",
                "--key", UploadServer.token, "--state-dir", state,
            ]
            let run2 = try RunningProcess(binary, arguments)
            _ = try await stallProxy.firstLine(startingWith: "TRIPPED")
            run2.kill()
            _ = try await run2.exitStatus()
            // The server keeps what arrived before the cut.
            var kept: Int64 = 0
            try await eventually("the server to keep the bytes of the cut upload") {
                let uploads = try FileManager.default.contentsOfDirectory(atPath: server.scratch.path + "/data/uploads")
                for id in uploads {
                    if let record = try await server.application.ledger.upload(id: id), !record.isComplete, record.offset > 0 {
                        kept = record.offset
                        return true
                    }
                }
                return false
            }
            let run3 = try RunningProcess(binary, arguments)
            let status3 = try await run3.exitStatus()
            #expect(status3 == 0, "\(run3.text)")
            #expect(run3.text.contains("resuming the upload at byte \(kept) of"), "kept \(kept): \(run3.text)")
            #expect(run3.text.contains("staged \(Self.product) 1.1"), "\(run3.text)")
            let versions = try await server.application.ledger.catalogVersions(productId: Self.product)
            #expect(versions.map(\.content.version).sorted() == ["1.0", "1.1"])
            #expect(versions.first { $0.content.version == "1.1" }?.state == .staged)
            // Once staged, nothing is left in the state directory.
            #expect((try? FileManager.default.contentsOfDirectory(atPath: state))?.isEmpty == true)

            // 3. Failures: one sentence and a nonzero exit.
            let badKey = try RunningProcess(
                binary,
                [
                    "publish", folder2, "--product", Self.product, "--version", "1.2", "--server", "http://127.0.0.1:\(server.port)",
                    "--key", "dpk_" + String(repeating: "x", count: 43), "--state-dir", state,
                ])
            #expect(try await badKey.exitStatus() != 0)
            #expect(badKey.text.contains("depot publish: the server refused the upload"), "\(badKey.text)")
            let mismatch = try RunningProcess(
                binary,
                [
                    "publish", folder2, "--product", Self.product, "--version", "9.9", "--server", "http://127.0.0.1:\(server.port)",
                    "--key", UploadServer.token, "--state-dir", state,
                ])
            #expect(try await mismatch.exitStatus() != 0)
            #expect(mismatch.text.contains("depot publish: version 9.9 failed: "), "\(mismatch.text)")
            #expect(mismatch.text.contains("not 9.9"), "\(mismatch.text)")
        }
    }

    static func writePack(_ server: UploadServer, version: String) throws -> String {
        var random = SeededBytes(seed: UInt64(version.utf8.count * 977 + Int(version.utf8.last ?? 0)))
        return try PublisherRequests.writePack(
            in: server.scratch, at: "packs/mission-\(version)", productId: product, version: version,
            files: ["maps/start.json": Array("{\"v\": \"\(version)\"}".utf8), "media/noise.bin": random.bytes(8 << 20)])
    }
}

/// A child process whose standard output and error go to a file, read as it grows.
///
/// A file rather than a pipe: a pipe's write end can be inherited by a process another test starts at the
/// same moment, and its end would then never come; and what the child prints last (buffered standard
/// output) is in the file once it exited.
final class RunningProcess: Sendable {
    private let process: Process
    private let outputPath: String

    init(_ path: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        outputPath = NSTemporaryDirectory() + "depot-process-\(UUID().uuidString).log"
        guard FileManager.default.createFile(atPath: outputPath, contents: nil),
            let output = FileHandle(forWritingAtPath: outputPath)
        else {
            throw CocoaError(.fileWriteUnknown)
        }
        process.standardOutput = output
        process.standardError = output
        self.process = process
        try process.run()
        try? output.close()
    }

    deinit { try? FileManager.default.removeItem(atPath: outputPath) }

    /// Everything printed so far.
    var text: String {
        (try? Data(contentsOf: URL(fileURLWithPath: outputPath))).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// The rest of the first line printed that starts with `prefix`, once printed.
    func firstLine(startingWith prefix: String) async throws -> String {
        var found: String?
        try await eventually("a line starting with \(prefix)", within: 120) {
            found = self.text.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
            return found != nil || !self.process.isRunning
        }
        return try #require(found, "\(text)")
    }

    /// Waits for the exit; returns the status.
    func exitStatus() async throws -> Int32 {
        try await eventually("the process to exit", within: 600) { !self.process.isRunning }
        return process.terminationStatus
    }

    /// kill -9.
    func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
    }
}

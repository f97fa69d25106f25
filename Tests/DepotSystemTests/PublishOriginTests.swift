@testable import DepotServerTestSupport
import DepotTestSupport
import Foundation
import Testing

/// `depot publish` sends its publisher key only to the server it was given: an upload `Location` on another
/// origin (host, port or scheme) is refused before any request goes there; one on the server's own origin,
/// absolute or relative, is followed.
@Suite("depot publish keeps its key on the server's origin")
struct PublishOriginTests {
    /// A stand-in for Depot (or for the host a hostile one points at): it logs every request with its
    /// Authorization header, answers tus creation with 201 and the `Location` given (`{self}` becomes its own
    /// port), a PATCH as if it took every byte, and anything else with a JSON 400.
    static let script = #"""
        import json, sys
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        log_path, location = sys.argv[1:3]

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def log_message(self, *args):
                pass
            def handle_one(self):
                length = int(self.headers.get("Content-Length", "0"))
                if length: self.rfile.read(length)
                with open(log_path, "a") as f:
                    f.write(json.dumps({"method": self.command, "path": self.path,
                                        "authorization": self.headers.get("Authorization")}) + "\n")
                if self.command == "POST" and self.path == "/v1/publisher/uploads":
                    headers = [("Location", location.replace("{self}", str(self.server.server_address[1])))]
                    self.answer(201, b"", headers)
                elif self.command == "PATCH":
                    declared = self.headers.get("Upload-Offset", "0")
                    self.answer(204, b"", [("Upload-Offset", str(int(declared) + length))])
                else:
                    self.answer(400, b'{"error": {"code": "stand-in", "message": "a stand-in"}}')
            def answer(self, status, body, headers=()):
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Tus-Resumable", "1.0.0")
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)
            do_GET = do_POST = do_PATCH = do_HEAD = do_PUT = handle_one

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    static let binary = DepotProcess.debugBinary(filePath: #filePath)
    static let key = "dpk_publish_origin_test_key_0123456789abcdef"

    /// Runs `depot publish` of a small pack against a stand-in whose creation answer names `location`
    /// (`{foreign}`: the port of a second stand-in); returns the result and both logs.
    static func publish(
        _ python: String, location: String, scratch: ScratchDirectory
    ) async throws -> (result: ExternalTool.Output, own: [[String: Any]], foreign: [[String: Any]]) {
        let foreign = try await PythonService.start(
            python, script: script, arguments: [scratch.path + "/foreign.log", "/unused"], logPath: scratch.path + "/foreign.log")
        defer { foreign.stop() }
        let own = try await PythonService.start(
            python, script: script,
            arguments: [scratch.path + "/own.log", location.replacingOccurrences(of: "{foreign}", with: "\(foreign.port)")],
            logPath: scratch.path + "/own.log")
        defer { own.stop() }
        try scratch.write("pack/pack.json", #"{"productId": "com.example.origin", "version": "1.0"}"#)
        try scratch.write("pack/Contents/readme.txt", "a readme\n")
        let result = try await ExternalTool.run(
            binary,
            [
                "publish", scratch.path + "/pack", "--product", "com.example.origin", "--version", "1.0", "--server",
                "http://127.0.0.1:\(own.port)", "--key", key, "--state-dir", scratch.path + "/state", "--retries", "0",
            ])
        return (result, try own.log(), try foreign.log())
    }

    @Test(arguments: [
        "http://127.0.0.1:{foreign}/v1/publisher/uploads/stolen",
        "//127.0.0.1:{foreign}/v1/publisher/uploads/stolen",
        "http://localhost:{foreign}/v1/publisher/uploads/stolen",
        "https://127.0.0.1:{self}/v1/publisher/uploads/stolen",
    ])
    func aLocationOnAnotherOriginIsRefusedAndGetsNoRequest(_ location: String) async throws {
        guard let python = ExternalTool.require("python3") else { return }
        let scratch = try ScratchDirectory("publish-foreign-location")
        defer { scratch.remove() }
        let (result, own, foreign) = try await Self.publish(python, location: location, scratch: scratch)

        #expect(result.status != 0)
        #expect(result.error.contains("another origin"), "\(result.error)")
        #expect(!result.error.contains(Self.key))
        #expect(foreign.isEmpty, "\(foreign)")
        // Only the creation went out, to the server given; nothing followed the foreign address.
        #expect(own.map { $0["method"] as? String } == ["POST"], "\(own)")
        #expect(own.allSatisfy { $0["authorization"] as? String == "Bearer \(Self.key)" })
        // Not remembered for a rerun either.
        let remembered = (try? FileManager.default.subpathsOfDirectory(atPath: scratch.path + "/state")) ?? []
        for name in remembered {
            let text = (try? String(contentsOfFile: scratch.path + "/state/" + name, encoding: .utf8)) ?? ""
            #expect(!text.contains("stolen"), "\(name)")
        }
    }

    @Test(arguments: [
        "http://127.0.0.1:{self}/v1/publisher/uploads/mine", "HTTP://127.0.0.1:{self}/v1/publisher/uploads/mine",
        "/v1/publisher/uploads/mine",
    ])
    func aLocationOnTheServersOwnOriginIsFollowed(_ location: String) async throws {
        guard let python = ExternalTool.require("python3") else { return }
        let scratch = try ScratchDirectory("publish-own-location")
        defer { scratch.remove() }
        let (result, own, foreign) = try await Self.publish(python, location: location, scratch: scratch)

        // The bytes went to the upload's address; the stand-in then refuses the version, which ends the run.
        #expect(result.status != 0)
        #expect(result.error.contains("a stand-in"), "\(result.error)")
        #expect(foreign.isEmpty)
        let patches = own.filter { $0["method"] as? String == "PATCH" }
        #expect(patches.map { $0["path"] as? String } == ["/v1/publisher/uploads/mine"], "\(own)")
        #expect(patches.allSatisfy { $0["authorization"] as? String == "Bearer \(Self.key)" })
    }
}

@testable import DepotServerTestSupport
import DepotTestSupport
import Foundation
import Testing

/// `depot publish` reads the `Upload-Offset` a server answers a PATCH with: a hostile one answering with an
/// offset at the extremes (below zero, past the file, `Int64.max`, `Int64.min`, 20 digits, a `+`) or with no
/// progress at all gets a one-sentence failure and exit 1, never a trap and never an endless loop.
@Suite("depot publish: the server's Upload-Offset at its extremes")
struct PublishOffsetTests {
    /// A stand-in for Depot: tus creation answers 201 with a Location on itself, a HEAD answers the offset
    /// given, and every PATCH answers 204 with the `Upload-Offset` given (`{sent}`: the true one).
    static let script = #"""
        import sys
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        offset = sys.argv[1]

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def log_message(self, *args):
                pass
            def handle_one(self):
                length = int(self.headers.get("Content-Length", "0"))
                if length: self.rfile.read(length)
                sent = str(int(self.headers.get("Upload-Offset", "0")) + length)
                if self.command == "POST" and self.path == "/v1/publisher/uploads":
                    self.answer(201, b"", [("Location", "/v1/publisher/uploads/u1")])
                elif self.command in ("PATCH", "HEAD"):
                    self.answer(204 if self.command == "PATCH" else 200, b"", [("Upload-Offset", offset.replace("{sent}", sent))])
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
            do_GET = do_POST = do_PATCH = do_HEAD = handle_one

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    @Test func everyExtremeOffsetEndsInAOneSentenceFailure() async throws {
        guard let python = ExternalTool.require("python3") else { return }
        let scratch = try ScratchDirectory("publish-offset")
        defer { scratch.remove() }
        try scratch.write("pack/pack.json", #"{"productId": "com.example.offset", "version": "1.0"}"#)
        try scratch.write("pack/Contents/readme.txt", "a readme\n")
        let offsets = ["0", "-1", "1", "+1", String(Int64.max), String(Int64.min), "-0", String(UInt64.max), "000000000000000000001"]
        for offset in offsets + ExtremeNumbers.values.filter({ $0.hasPrefix("-") }) {
            let server = try await PythonService.start(
                python, script: Self.script, arguments: [offset], logPath: scratch.path + "/server.log")
            defer { server.stop() }
            let result = try await ExternalTool.run(
                PublishOriginTests.binary,
                [
                    "publish", scratch.path + "/pack", "--product", "com.example.offset", "--version", "1.0", "--server",
                    "http://127.0.0.1:\(server.port)", "--key", PublishOriginTests.key, "--state-dir", scratch.path + "/state-\(offset)",
                    "--retries", "0",
                ])
            #expect(result.status == 1, "Upload-Offset: \(offset): \(result.status) \(result.error)")
            #expect(
                result.error.contains("depot publish: the upload kept failing: the server"), "Upload-Offset: \(offset): \(result.error)")
        }
    }
}

import DepotTestSupport
import Foundation

/// A tiny stand-in for a Depot server that answers a redeem with one download of a bundle the test made
/// (possibly hostile, possibly under a digest that is not its own), serves it, and records every finish
/// along with whether the content was already installed when the finish arrived. `serving` says how it
/// answers the bundle's GET: `whole` (the bundle), `416` (always Range Not Satisfiable), `short` (a 200
/// of half the bundle, its Content-Length true to what is sent) or `empty` (a 200 with no body).
enum HostileDepot {
    /// The content identifier and version of the one download.
    static let contentId = "com.example.hostile"
    static let version = "1.0"

    static func start(
        _ python: String, bundle: String, advertisedDigest: String, out: String, logPath: String, serving: String = "whole"
    ) async throws
        -> PythonService
    {
        try await PythonService.start(
            python, script: script, arguments: [bundle, advertisedDigest, contentId, version, out, logPath, serving], logPath: logPath)
    }

    /// Writes a bundle to `path`: a `ContentInfo.plist` for `contentId` 1.0, `Contents/readme.txt`, and the
    /// entry `hostile` names: `dotdot` (`Contents/../../escaped.txt`), `absolute` (`escapeTo` as an absolute
    /// path), `symlink` (`Contents/link` pointing at `escapeTo`), or `none`.
    static func makeBundle(_ python: String, at path: String, hostile: String, escapeTo: String) async throws {
        let result = try await ExternalTool.run(python, ["-c", bundleScript, path, hostile, escapeTo, contentId, version])
        guard result.status == 0 else { throw PythonService.PythonFailure(description: "making the bundle failed: \(result.error)") }
    }

    static let bundleScript = #"""
        import plistlib, sys, zipfile
        path, hostile, escape_to, content_id, version = sys.argv[1:6]
        readme = b"a readme\n"
        info = plistlib.dumps({"ContentIdentifier": content_id, "ContentVersion": version, "FileCount": 1,
                               "UnpackedSize": len(readme), "IAPProductIdentifier": content_id})
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("ContentInfo.plist", info)
            z.writestr("Contents/readme.txt", readme)
            if hostile == "dotdot":
                z.writestr("Contents/../../escaped.txt", b"escaped")
            elif hostile == "absolute":
                z.writestr(zipfile.ZipInfo(escape_to), b"escaped")
            elif hostile == "symlink":
                link = zipfile.ZipInfo("Contents/link")
                link.create_system = 3
                link.external_attr = (0o120777 << 16)
                z.writestr(link, escape_to)
        """#

    static let script = #"""
        import json, os, sys
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        bundle, digest, content_id, version, out, log_path, serving = sys.argv[1:8]
        transaction = {"id": "1000", "originalId": "1000", "productId": content_id, "state": "pending", "finishToken": "token"}

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def log_message(self, *args):
                pass
            def record(self, entry):
                entry["path"] = self.path.split("?")[0]
                with open(log_path, "a") as f:
                    f.write(json.dumps(entry) + "\n")
            def answer(self, status, body, kind="application/json", extra=()):
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                for name, value in extra:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.path == "/v1/transactions":
                    self.record({"method": "POST"})
                    download = {"contentId": content_id, "version": version, "size": os.path.getsize(bundle),
                                "digest": digest, "url": "/v1/bundles/" + digest + "?grant=g",
                                "grantExpiresAt": "2030-01-01T00:00:00Z"}
                    self.answer(200, json.dumps({"transaction": transaction, "downloads": [download]}).encode())
                elif self.path == "/v1/transactions/1000/finish":
                    installed = os.path.exists(os.path.join(out, content_id, "Contents", "readme.txt"))
                    self.record({"method": "POST", "finish": True, "installedBeforeFinish": installed})
                    done = dict(transaction, state="finished")
                    self.answer(200, json.dumps({"transaction": done, "finishStoreKitTransaction": True}).encode())
                else:
                    self.answer(404, b'{"error": {"code": "not-found", "message": "no such route"}}')
            def do_GET(self):
                self.record({"method": "GET", "range": self.headers.get("Range")})
                with open(bundle, "rb") as f:
                    data = f.read()
                etag = [("ETag", '"' + digest + '"')]
                if serving == "416":
                    self.answer(416, b"", "application/zip", [("Content-Range", "bytes */%d" % len(data))])
                elif serving == "short":
                    self.answer(200, data[: len(data) // 2], "application/zip", etag)
                elif serving == "empty":
                    self.answer(200, b"", "application/zip", etag)
                else:
                    self.answer(200, data, "application/zip", etag)

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#
}

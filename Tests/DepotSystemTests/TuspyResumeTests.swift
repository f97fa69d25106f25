@testable import DepotServerTestSupport
import Crypto
import DepotLedger
import DepotTestSupport
import Foundation
import Testing

@testable import DepotServer
@testable import DepotServices

/// The tus project's own Python client, tuspy, uploads a pack through a proxy that cuts its connection
/// part way; a new process resumes the upload from the offset the server kept, with sha1 checksums.
@Suite("tuspy resumes through a cut connection")
struct TuspyResumeTests {
    /// Process 1: a small TCP proxy in front of Depot that cuts every connection once `cut_after` bytes
    /// went upstream, and tuspy uploading through it until the cut fails the upload. Prints the upload's URL.
    static let firstProcess = #"""
        import socket, sys, threading
        from tusclient import client
        server_port, path, token, cut_after = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
        listener = socket.socket(); listener.bind(("127.0.0.1", 0)); listener.listen(8)
        proxy_port = listener.getsockname()[1]
        forwarded = [0]
        def pump(src, dst, upstream):
            try:
                while True:
                    data = src.recv(65536)
                    if not data: break
                    if upstream:
                        room = cut_after - forwarded[0]
                        if room <= 0: break
                        data = data[:room]
                        forwarded[0] += len(data)
                    dst.sendall(data)
            except OSError:
                pass
            for s in (src, dst):
                try: s.shutdown(socket.SHUT_RDWR)
                except OSError: pass
        def serve():
            while True:
                downstream, _ = listener.accept()
                upstream = socket.create_connection(("127.0.0.1", server_port))
                threading.Thread(target=pump, args=(downstream, upstream, True), daemon=True).start()
                threading.Thread(target=pump, args=(upstream, downstream, False), daemon=True).start()
        threading.Thread(target=serve, daemon=True).start()
        tus = client.TusClient(f"http://127.0.0.1:{proxy_port}/v1/publisher/uploads",
                               headers={"Authorization": "Bearer " + token})
        uploader = tus.uploader(path, chunk_size=4 << 20, retries=0, metadata={"filename": "pack.zip"})
        uploader.set_url(uploader.create_url())
        url = uploader.url
        print("URL " + url.split(f":{proxy_port}", 1)[1], flush=True)
        try:
            uploader.upload()
            print("FINISHED", flush=True)
        except Exception as error:
            print("FAILED " + type(error).__name__, flush=True)
        """#

    /// Process 2: tuspy straight to Depot, resuming the URL process 1 made, with sha1 checksums per chunk.
    static let secondProcess = #"""
        import sys
        from tusclient import client
        server_port, path, token, upload_path = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
        base = f"http://127.0.0.1:{server_port}"
        tus = client.TusClient(base + "/v1/publisher/uploads", headers={"Authorization": "Bearer " + token})
        uploader = tus.uploader(path, url=base + upload_path, chunk_size=1 << 20, upload_checksum=True)
        print("RESUMED_AT " + str(uploader.offset), flush=True)
        uploader.upload()
        print("DONE " + str(uploader.offset), flush=True)
        """#

    @Test(arguments: LedgerEngine.tested)
    func tuspyResumesAfterTheConnectionIsCut(engine: LedgerEngine) async throws {
        guard let python = try await PythonPackage.python(importing: "tusclient", package: "tuspy") else { return }
        try await UploadServer.with(engine: engine) { server in
            // A pack zipped: 12 MiB, mostly incompressible.
            var random = SeededBytes(seed: 21)
            let pack = random.bytes(12 << 20)
            let file = server.server.scratch.path + "/pack.zip"
            try Data(pack).write(to: URL(fileURLWithPath: file))

            let first = try await ExternalTool.run(
                python, ["-c", Self.firstProcess, String(server.port), file, UploadServer.token, String(5 << 20)])
            #expect(first.output.contains("FAILED"), "the cut must fail the first process: \(first.output) \(first.error)")
            let line = try #require(first.output.split(separator: "\n").first { $0.hasPrefix("URL ") }, "\(first.output) \(first.error)")
            let path = String(line.dropFirst(4))
            let id = String(path.split(separator: "/").last!)
            // The server kept the bytes that arrived before the cut (more than the first 4 MiB chunk).
            try await eventually("the cut PATCH is counted") {
                guard let offset = try await server.offset(path) else { return false }
                return offset > 4 << 20 && !UploadLockProbe.isLocked(server.file(id))
            }
            let kept = try #require(try await server.offset(path))
            #expect(kept < Int64(pack.count))

            let second = try await ExternalTool.run(
                python, ["-c", Self.secondProcess, String(server.port), file, UploadServer.token, path])
            #expect(second.status == 0, "\(second.output) \(second.error)")
            #expect(second.output.contains("RESUMED_AT \(kept)"), "\(second.output)")
            #expect(second.output.contains("DONE \(pack.count)"), "\(second.output)")
            #expect(try await server.offset(path) == Int64(pack.count))
            let stored = try Data(contentsOf: URL(fileURLWithPath: server.file(id)))
            #expect(SHA256.hash(data: stored) == SHA256.hash(data: pack))
            let record = try #require(try await server.application.ledger.upload(id: id))
            #expect(UploadMetadata.decode(record.metadata)?.text("filename") == "pack.zip")
        }
    }
}

extension UploadMetadata {
    /// The parsed form of a stored header, or nil when it does not parse.
    static func decode(_ header: String) -> UploadMetadata? { try? UploadMetadata(header: header) }
}

@testable import DepotServerTestSupport
import Crypto
import DepotLedger
import DepotTestSupport
import Foundation
import Testing

@testable import DepotServer
@testable import DepotServices

/// tus 1.0 against a live server on both ledger engines: core, creation (with upload, deferred length),
/// termination, checksum, expiration, the size limit, strict metadata and one writer at a time.
@Suite("tus uploads, live")
struct UploadRouteTests {
    static func bytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
        var random = SeededBytes(seed: seed)
        return random.bytes(count)
    }

    static func base64Digest(_ bytes: [UInt8], sha1: Bool = false) -> String {
        sha1 ? Data(Insecure.SHA1.hash(data: bytes)).base64EncodedString() : Data(SHA256.hash(data: bytes)).base64EncodedString()
    }

    static func fileBytes(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map(Array.init)
    }

    static func expectErrorBody(_ response: RawHTTPClient.Response, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.value("Tus-Resumable") == "1.0.0", sourceLocation: sourceLocation)
        let answer = try? JSONAnswer(response)
        #expect(answer?["error.code"]?.string == code, "\(response.status) \(response.text)", sourceLocation: sourceLocation)
        #expect(answer?["error.message"]?.string?.isEmpty == false, sourceLocation: sourceLocation)
    }

    @Test func optionsAdvertiseVersionExtensionsSizeAndChecksums() async throws {
        try await UploadServer.with(engine: .sqlite) { server in
            for path in [UploadRoutes.path, UploadRoutes.path + "/0123456789abcdef0123456789abcdef"] {
                let response = try await server.request(
                    "OPTIONS", path, headers: ["Authorization: Bearer \(UploadServer.token)"], tus: false)
                #expect(response.status == 204)
                #expect(response.value("Tus-Resumable") == "1.0.0")
                #expect(response.value("Tus-Version") == "1.0.0")
                #expect(response.value("Tus-Max-Size") == String(UploadServer.maxSize))
                #expect(response.value("Tus-Checksum-Algorithm") == "sha1,sha256")
                let extensions = Set((response.value("Tus-Extension") ?? "").split(separator: ",").map(String.init))
                #expect(
                    extensions == ["creation", "creation-with-upload", "creation-defer-length", "termination", "checksum", "expiration"])
            }
        }
    }

    @Test func versionAndAuthenticationAreCheckedWithTusHeadersOnTheAnswer() async throws {
        try await UploadServer.with(engine: .sqlite) { server in
            let noVersion = try await server.request(
                "POST", UploadRoutes.path, headers: ["Authorization: Bearer \(UploadServer.token)", "Upload-Length: 5"], tus: false)
            #expect(noVersion.status == 412)
            #expect(noVersion.value("Tus-Version") == "1.0.0")
            Self.expectErrorBody(noVersion, "tus-version-unsupported")
            let oldVersion = try await server.request(
                "HEAD", UploadRoutes.path + "/0123456789abcdef0123456789abcdef",
                headers: ["Authorization: Bearer \(UploadServer.token)", "Tus-Resumable: 0.2.2"], tus: false)
            #expect(oldVersion.status == 412)
            let anonymous = try await server.request(
                "POST", UploadRoutes.path, headers: ["Tus-Resumable: 1.0.0", "Upload-Length: 5"], tus: false)
            #expect(anonymous.status == 401)
            Self.expectErrorBody(anonymous, "publisher-key-required")
            let wrongKey = try await server.request(
                "POST", UploadRoutes.path, headers: ["Tus-Resumable: 1.0.0", "Upload-Length: 5", "Authorization: Bearer nope"],
                tus: false)
            #expect(wrongKey.status == 401)
            #expect(tree(server.application.uploadStore.directory).isEmpty, "nothing was created")
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func coreCreatePatchHeadInOrder(engine: LedgerEngine) async throws {
        try await UploadServer.with(engine: engine) { server in
            let data = Self.bytes(3 << 20)
            let path = try await server.create(length: Int64(data.count), metadata: "filename cGFjay56aXA=,note")
            #expect(path.hasPrefix(UploadRoutes.path + "/"))
            let id = String(path.dropFirst(UploadRoutes.path.count + 1))

            let head = try await server.request("HEAD", path)
            #expect(head.status == 200)
            #expect(head.value("Upload-Offset") == "0")
            #expect(head.value("Upload-Length") == String(data.count))
            #expect(head.value("Upload-Metadata") == "filename cGFjay56aXA=,note")
            #expect(head.value("Cache-Control") == "no-store")
            #expect(head.value("Tus-Resumable") == "1.0.0")
            #expect(head.value("Upload-Expires").flatMap { HTTPDateParsing.seconds($0) } == server.clock.now() + UploadServer.expirySeconds)

            let first = try await server.patch(path, offset: 0, Array(data[..<1_000_000]))
            #expect(first.status == 204, "\(first.text)")
            #expect(first.value("Upload-Offset") == "1000000")
            #expect(first.value("Upload-Expires") != nil)
            #expect(first.value("Tus-Resumable") == "1.0.0")

            // A wrong offset is 409, and the bytes it carried are not written.
            for wrong in [Int64(0), 999_999, 1_000_001] {
                let conflict = try await server.patch(path, offset: wrong, Array(data[1_000_000..<1_000_100]))
                #expect(conflict.status == 409)
                Self.expectErrorBody(conflict, "upload-offset-mismatch")
            }
            let noType = try await server.request(
                "PATCH", path, headers: ["Upload-Offset: 1000000"], body: Array(data[1_000_000..<1_000_100]))
            #expect(noType.status == 415)
            let noOffset = try await server.request(
                "PATCH", path, headers: ["Content-Type: application/offset+octet-stream"], body: [1])
            #expect(noOffset.status == 400)
            #expect(try await server.offset(path) == 1_000_000)

            let rest = try await server.patch(path, offset: 1_000_000, Array(data[1_000_000...]))
            #expect(rest.status == 204)
            #expect(rest.value("Upload-Offset") == String(data.count))
            // Complete: more bytes are refused, and the bytes on disk are exactly the upload.
            let extra = try await server.patch(path, offset: Int64(data.count), [1, 2, 3])
            #expect(extra.status == 409)
            #expect(Self.fileBytes(server.file(id)) == data)
            let record = try #require(try await server.application.ledger.upload(id: id))
            #expect(record.isComplete && record.publisher == "uploader")
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func creationWithUploadAndDeferredLength(engine: LedgerEngine) async throws {
        try await UploadServer.with(engine: engine) { server in
            let data = Self.bytes(200_000, seed: 2)
            let created = try await server.request(
                "POST", UploadRoutes.path,
                headers: ["Upload-Length: \(data.count)", "Content-Type: application/offset+octet-stream"],
                body: Array(data[..<50_000]))
            #expect(created.status == 201)
            #expect(created.value("Upload-Offset") == "50000")
            let path = try UploadServer.path(ofLocation: try #require(created.value("Location")))
            #expect(try await server.offset(path) == 50_000)

            let deferred = try await server.create(length: nil)
            let head = try await server.request("HEAD", deferred)
            #expect(head.value("Upload-Defer-Length") == "1")
            #expect(head.value("Upload-Length") == nil)
            #expect(try await server.patch(deferred, offset: 0, Array(data[..<120_000])).status == 204)
            // The length arrives with a later PATCH, once; it may not be below the offset.
            #expect(try await server.patch(deferred, offset: 120_000, [], headers: ["Upload-Length: 100"]).status == 400)
            let last = try await server.patch(
                deferred, offset: 120_000, Array(data[120_000...]), headers: ["Upload-Length: \(data.count)"])
            #expect(last.status == 204)
            let done = try await server.request("HEAD", deferred)
            #expect(done.value("Upload-Length") == String(data.count))
            #expect(done.value("Upload-Offset") == String(data.count))
            #expect(Self.fileBytes(server.file(String(deferred.split(separator: "/").last!))) == data)
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func checksumMismatchDiscardsTheChunk(engine: LedgerEngine) async throws {
        try await UploadServer.with(engine: engine) { server in
            let data = Self.bytes(300_000, seed: 3)
            let path = try await server.create(length: Int64(data.count))
            let id = String(path.split(separator: "/").last!)
            let first = Array(data[..<100_000])
            let good = try await server.patch(path, offset: 0, first, headers: ["Upload-Checksum: sha256 \(Self.base64Digest(first))"])
            #expect(good.status == 204)
            let second = Array(data[100_000..<200_000])
            let bad = try await server.patch(
                path, offset: 100_000, second, headers: ["Upload-Checksum: sha1 \(Self.base64Digest(first, sha1: true))"])
            #expect(bad.status == 460)
            Self.expectErrorBody(bad, "upload-checksum-mismatch")
            #expect(try await server.offset(path) == 100_000)
            #expect(Self.fileBytes(server.file(id)) == first, "the mismatched chunk is gone from disk")
            let unsupported = try await server.patch(
                path, offset: 100_000, second, headers: ["Upload-Checksum: md5 AAAAAAAAAAAAAAAAAAAAAA=="])
            #expect(unsupported.status == 400)
            let sha1 = try await server.patch(
                path, offset: 100_000, second, headers: ["Upload-Checksum: sha1 \(Self.base64Digest(second, sha1: true))"])
            #expect(sha1.status == 204)
            #expect(sha1.value("Upload-Offset") == "200000")
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func terminationRemovesRecordAndBytes(engine: LedgerEngine) async throws {
        try await UploadServer.with(engine: engine) { server in
            let path = try await server.create(length: 1000)
            let id = String(path.split(separator: "/").last!)
            #expect(try await server.patch(path, offset: 0, Self.bytes(500)).status == 204)
            #expect(FileManager.default.fileExists(atPath: server.file(id)))
            let deleted = try await server.request("DELETE", path)
            #expect(deleted.status == 204)
            #expect(deleted.value("Tus-Resumable") == "1.0.0")
            #expect(try await server.request("HEAD", path).status == 404)
            #expect(try await server.patch(path, offset: 500, [1]).status == 404)
            #expect(try await server.request("DELETE", path).status == 404)
            #expect(!FileManager.default.fileExists(atPath: server.file(id)))
            #expect(try await server.application.ledger.upload(id: id) == nil)
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func expiredUploadsAreGoneThenReaped(engine: LedgerEngine) async throws {
        try await UploadServer.with(engine: engine) { server in
            let path = try await server.create(length: 1000)
            let id = String(path.split(separator: "/").last!)
            let keep = try await server.create(length: 1000)
            #expect(try await server.patch(path, offset: 0, Self.bytes(100)).status == 204)
            server.clock.advance(by: UploadServer.expirySeconds - 10)
            // A PATCH moves the expiry on: the second upload outlives the first.
            #expect(try await server.patch(keep, offset: 0, Self.bytes(100)).status == 204)
            server.clock.advance(by: 10)
            let gone = try await server.request("HEAD", path)
            #expect(gone.status == 410)
            #expect(gone.value("Tus-Resumable") == "1.0.0")
            let patchGone = try await server.patch(path, offset: 100, [1])
            #expect(patchGone.status == 410)
            Self.expectErrorBody(patchGone, "upload-expired")
            #expect(FileManager.default.fileExists(atPath: server.file(id)), "not reaped yet")
            #expect(try await server.reaper().reap() == 1)
            #expect(try await server.request("HEAD", path).status == 404)
            #expect(!FileManager.default.fileExists(atPath: server.file(id)))
            #expect(try await server.offset(keep) == 100)
            #expect(try await server.reaper().reap() == 0)
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func sizeLimitsAndStrictMetadata(engine: LedgerEngine) async throws {
        try await UploadServer.with(engine: engine) { server in
            let tooLarge = try await server.request("POST", UploadRoutes.path, headers: ["Upload-Length: \(UploadServer.maxSize + 1)"])
            #expect(tooLarge.status == 413)
            Self.expectErrorBody(tooLarge, "upload-too-large")
            for metadata in ["filename !!notbase64", "a YQ==,a Yg==", "a YQ", "a YQ==,,b"] {
                let refused = try await server.request(
                    "POST", UploadRoutes.path, headers: ["Upload-Length: 10", "Upload-Metadata: \(metadata)"])
                #expect(refused.status == 400, "\(metadata)")
                Self.expectErrorBody(refused, "upload-metadata-invalid")
            }
            #expect(tree(server.application.uploadStore.directory).isEmpty, "refused creations made nothing")
            let path = try await server.create(length: 100)
            #expect(try await server.patch(path, offset: 0, Self.bytes(101)).status == 413)
            #expect(try await server.offset(path) == 0)
            let deferred = try await server.create(length: nil)
            #expect(try await server.patch(deferred, offset: 0, [], headers: ["Upload-Length: \(UploadServer.maxSize + 1)"]).status == 413)
            for bad in ["/v1/publisher/uploads/nothex", "/v1/publisher/uploads/0123456789abcdef0123456789abcdef"] {
                let missing = try await server.request("HEAD", bad)
                #expect(missing.status == 404)
            }
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func oneWriterAtATime(engine: LedgerEngine) async throws {
        try await UploadServer.with(engine: engine) { server in
            let data = Self.bytes(4 << 20, seed: 4)
            let path = try await server.create(length: Int64(data.count))
            let id = String(path.split(separator: "/").last!)
            // Writer A sends its head and part of its body, then holds on.
            let writerA = try RawHTTPClient(port: server.port)
            var head = "PATCH \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            for line in UploadServer.tusHeaders { head += line + "\r\n" }
            head += "Content-Type: application/offset+octet-stream\r\nUpload-Offset: 0\r\nContent-Length: \(data.count)\r\n\r\n"
            try await writerA.send(head)
            try await writerA.send(bytes: Array(data[..<(1 << 20)]))
            try await eventually("writer A holds the upload's lock") { UploadLockProbe.isLocked(server.file(id)) }
            // Writer B, at the same offset, is refused while A writes: never interleaved.
            let other = Self.bytes(64 << 10, seed: 99)
            let second = try await server.patch(path, offset: 0, other)
            #expect(second.status == 423 || second.status == 409, "\(second.status)")
            try await writerA.send(bytes: Array(data[(1 << 20)...]))
            let answer = try await writerA.readResponse()
            #expect(answer.status == 204)
            #expect(answer.value("Upload-Offset") == String(data.count))
            #expect(Self.fileBytes(server.file(id)) == data)
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func aCutPatchKeepsTheBytesThatArrived(engine: LedgerEngine) async throws {
        try await UploadServer.with(engine: engine) { server in
            let data = Self.bytes(3 << 20, seed: 5)
            let path = try await server.create(length: Int64(data.count))
            let id = String(path.split(separator: "/").last!)
            let client = try RawHTTPClient(port: server.port)
            var head = "PATCH \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            for line in UploadServer.tusHeaders { head += line + "\r\n" }
            head += "Content-Type: application/offset+octet-stream\r\nUpload-Offset: 0\r\nContent-Length: \(data.count)\r\n\r\n"
            try await client.send(head)
            let sent = 2_000_123
            try await client.send(bytes: Array(data[..<sent]))
            client.cut()
            // A loaded machine may take long to read the rest and record the offset; the last one seen is reported.
            var seen: Int64? = nil
            do {
                try await eventually("the cut PATCH's bytes are counted", within: 300) {
                    seen = try await server.offset(path)
                    return seen == Int64(sent)
                }
            } catch {
                Issue.record("the upload's offset stayed at \(String(describing: seen)), not \(sent)")
                throw error
            }
            #expect(Self.fileBytes(server.file(id)) == Array(data[..<sent]))
            // The client resumes where HEAD says.
            let resumed = try await server.patch(path, offset: Int64(sent), Array(data[sent...]))
            #expect(resumed.status == 204)
            #expect(Self.fileBytes(server.file(id)) == data)

            // With a checksum, a cut chunk cannot be checked: it is discarded whole.
            let checked = try await server.create(length: Int64(data.count))
            let checkedId = String(checked.split(separator: "/").last!)
            let second = try RawHTTPClient(port: server.port)
            var checkedHead = "PATCH \(checked) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            for line in UploadServer.tusHeaders { checkedHead += line + "\r\n" }
            checkedHead += "Content-Type: application/offset+octet-stream\r\nUpload-Offset: 0\r\nContent-Length: \(data.count)\r\n"
            checkedHead += "Upload-Checksum: sha256 \(Self.base64Digest(data))\r\n\r\n"
            try await second.send(checkedHead)
            try await second.send(bytes: Array(data[..<sent]))
            try await eventually("writer holds the lock") { UploadLockProbe.isLocked(server.file(checkedId)) }
            second.cut()
            try await eventually("the cut, checksummed PATCH releases the upload", within: 300) {
                !UploadLockProbe.isLocked(server.file(checkedId))
            }
            #expect(try await server.offset(checked) == 0)
            #expect(Self.fileBytes(server.file(checkedId)) == [])
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func everyInstanceSharingTheLedgerAnswers(engine: LedgerEngine) async throws {
        try await SharedInstances.with(engine: engine) { shared in
            var key = PublisherKey.make(publisher: "uploader", productPrefixes: [], now: 1).record
            key.keyDigest = PublisherKey.digest(of: UploadServer.token)
            try await shared.servers[0].application.ledger.createPublisherKey(key)
            let auth = "Authorization: Bearer \(UploadServer.token)"
            func send(_ index: Int, _ text: String, _ body: [UInt8] = [], head: Bool = false) async throws -> RawHTTPClient.Response {
                let client = try RawHTTPClient(port: shared.servers[index].port)
                try await client.send(text)
                if !body.isEmpty { try await client.send(bytes: body) }
                return try await client.readResponse(head: head)
            }
            let created = try await send(
                0,
                "POST \(UploadRoutes.path) HTTP/1.1\r\nHost: x\r\nTus-Resumable: 1.0.0\r\n\(auth)\r\nUpload-Length: 10\r\nContent-Length: 0\r\n\r\n"
            )
            #expect(created.status == 201)
            let path = try UploadServer.path(ofLocation: try #require(created.value("Location")))
            let patched = try await send(
                1,
                "PATCH \(path) HTTP/1.1\r\nHost: x\r\nTus-Resumable: 1.0.0\r\n\(auth)\r\nUpload-Offset: 0\r\n"
                    + "Content-Type: application/offset+octet-stream\r\nContent-Length: 6\r\n\r\n", Array("abcdef".utf8))
            #expect(patched.status == 204)
            let head = try await send(0, "HEAD \(path) HTTP/1.1\r\nHost: x\r\nTus-Resumable: 1.0.0\r\n\(auth)\r\n\r\n", head: true)
            #expect(head.value("Upload-Offset") == "6")
        }
    }
}

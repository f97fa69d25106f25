@testable import DepotServerTestSupport
import DepotCore
import DepotLedger
@testable import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// `POST /v1/publisher/products/{id}/versions` on a live server: an upload made with tus becomes a staged
/// version through `received`, `validating` and `bundling`; hostile archives and wrong digests fail with
/// their reason and stage nothing; requests that can be judged at once get their 4xx.
@Suite("Versions from uploads")
struct UploadVersionTests {
    static let product = "com.example.mission"

    /// A pack folder `<name>/pack.json` + `<name>/Contents/...` under the scratch directory.
    static func writePack(_ server: UploadServer, name: String, version: String, size: Int = 300_000) throws -> String {
        var random = SeededBytes(seed: UInt64(version.utf8.reduce(0) { $0 &* 31 &+ Int($1) }))
        return try PublisherRequests.writePack(
            in: server.scratch, at: "packs/\(name)", productId: product, version: version,
            files: [
                "maps/start.json": Array("{\"mission\": \"\(version)\"}".utf8), "media/noise.bin": random.bytes(size),
                "media/quiet.txt": Array(String(repeating: "calm ", count: 2000).utf8),
            ])
    }

    /// Uploads `bytes` with tus; returns the upload's id.
    static func upload(_ server: UploadServer, _ bytes: [UInt8]) async throws -> String {
        let path = try await server.create(length: Int64(bytes.count))
        let patch = try await server.patch(path, offset: 0, bytes)
        #expect(patch.status == 204, "\(patch.status) \(patch.text)")
        return String(path.split(separator: "/").last ?? "")
    }

    static func createProduct(_ server: UploadServer) async throws {
        try await server.createProduct(product, title: "Mission")
    }

    static func postVersion(_ server: UploadServer, _ json: String, product: String = product) async throws -> RawHTTPClient.Response {
        try await server.request(
            "POST", "/v1/publisher/products/\(product)/versions", headers: ["Content-Type: application/json"],
            body: Array(json.utf8))
    }

    /// The version entry of `job` in the versions list, once it reached a final state.
    static func finalState(_ server: UploadServer, job: String?) async throws -> JSONAnswer? {
        var found: JSONAnswer?
        try await eventually("job \(job ?? "?") to end", within: 300) {
            let list = try JSONAnswer(try await server.request("GET", "/v1/publisher/products/\(product)/versions"))
            found = list["versions"]?.array.first { $0["job"]?.string == job }
            let state = found?["state"]?.string
            if state == "failed" { return true }
            // A staged job leaves the list; its version is the catalog's.
            if found == nil { return true }
            return false
        }
        return found
    }

    static func sha256(_ bytes: [UInt8]) -> String { SharedInstances.hexSHA256(bytes) }

    @Test(arguments: LedgerEngine.tested)
    func aZipAndATarGzBecomeStagedVersionsAndPublish(engine: LedgerEngine) async throws {
        guard let zip = ExternalTool.require("zip"), let tar = ExternalTool.require("tar") else { return }
        try await UploadServer.with(engine: engine) { server in
            try await Self.createProduct(server)
            let folder = try Self.writePack(server, name: "mission-1.0", version: "1.0")
            let packs = server.scratch.path + "/packs"
            let zipped = try await ExternalTool.run(zip, ["-r", "-q", "mission-1.0.zip", "mission-1.0"], in: packs)
            #expect(zipped.status == 0, "\(zipped.error)")
            let archive = Array(try Data(contentsOf: URL(fileURLWithPath: packs + "/mission-1.0.zip")))
            let upload = try await Self.upload(server, archive)

            let post = try await Self.postVersion(
                server, #"{"upload": "\#(upload)", "version": "1.0", "sha256": "\#(Self.sha256(archive).uppercased())"}"#)
            #expect(post.status == 202, "\(post.text)")
            #expect(post.value("Location") == "/v1/publisher/products/\(Self.product)/versions")
            let accepted = try JSONAnswer(post)
            #expect(accepted["version.state"]?.string == "received")
            #expect(accepted["version.upload"]?.string == upload)
            let job = accepted["version.job"]?.string
            #expect(try await Self.finalState(server, job: job) == nil)
            let versions = try await server.application.ledger.catalogVersions(productId: Self.product)
            #expect(versions.map(\.state) == [.staged])
            #expect(versions.first?.content.version == "1.0")
            #expect(try await server.application.ledger.versionJob(id: job ?? "")?.state == .staged)
            _ = folder

            // A tar.gz of the same folder's next version, with a declared publication time.
            _ = try Self.writePack(server, name: "mission-1.1", version: "1.1")
            let tarred = try await ExternalTool.run(tar, ["-czf", "mission-1.1.tar.gz", "mission-1.1"], in: packs)
            #expect(tarred.status == 0, "\(tarred.error)")
            let tarball = Array(try Data(contentsOf: URL(fileURLWithPath: packs + "/mission-1.1.tar.gz")))
            let second = try await Self.upload(server, tarball)
            let post2 = try await Self.postVersion(
                server,
                #"{"upload": "\#(second)", "version": "1.1", "sha256": "\#(Self.sha256(tarball))", "contentId": "\#(Self.product)", "publishedAt": "2026-06-01T00:00:00Z"}"#
            )
            #expect(post2.status == 202, "\(post2.text)")
            #expect(try await Self.finalState(server, job: try JSONAnswer(post2)["version.job"]?.string) == nil)
            let staged = try #require(
                try await server.application.ledger.catalogVersions(productId: Self.product).first { $0.content.version == "1.1" })
            #expect(staged.content.publishedAt == 1_780_272_000)

            // Published through the route, offered to apps.
            let publish = try await server.request("POST", "/v1/publisher/products/\(Self.product)/versions/1.1/publish")
            #expect(publish.status == 200, "\(publish.text)")
            let list = try await server.request("GET", "/v1/products", tus: false)
            #expect(list.text.contains(staged.content.digest.hex))
        }
    }

    /// Archives built with Python's zipfile and tarfile, each hostile in one way.
    static let hostileArchives = #"""
        import io, sys, tarfile, zipfile
        out = sys.argv[1]
        manifest = b'{"productId": "com.example.mission", "version": "2.0", "publishedAt": "2026-03-01T09:00:00Z"}'
        with zipfile.ZipFile(out + "/slip.zip", "w") as z:
            z.writestr("pack.json", manifest)
            z.writestr("Contents/ok.txt", b"fine")
            z.writestr("../escaped.txt", b"outside")
        with zipfile.ZipFile(out + "/absolute.zip", "w") as z:
            z.writestr("pack.json", manifest)
            z.writestr("/tmp/absolute-escape.txt", b"outside")
        with zipfile.ZipFile(out + "/bomb.zip", "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("pack.json", manifest)
            z.writestr("Contents/zeros.bin", b"\0" * (40 << 20))
        def add(t, name, data):
            info = tarfile.TarInfo(name); info.size = len(data); t.addfile(info, io.BytesIO(data))
        with tarfile.open(out + "/link.tar.gz", "w:gz") as t:
            add(t, "pack.json", manifest)
            link = tarfile.TarInfo("Contents/passwd"); link.type = tarfile.SYMTYPE; link.linkname = "/etc/passwd"
            t.addfile(link)
        with tarfile.open(out + "/slip.tar", "w") as t:
            add(t, "pack.json", manifest)
            add(t, "Contents/../../tar-escaped.txt", b"outside")
        """#

    @Test(arguments: LedgerEngine.tested)
    func hostileArchivesAndWrongDigestsFailWithTheirReasonAndStageNothing(engine: LedgerEngine) async throws {
        guard let python = ExternalTool.require("python3") else { return }
        try await UploadServer.with(engine: engine) { server in
            try await Self.createProduct(server)
            try server.scratch.write("hostile/make.py", Self.hostileArchives)
            let made = try await ExternalTool.run(python, ["make.py", "."], in: server.scratch.path + "/hostile")
            #expect(made.status == 0, "\(made.error)")
            let cases: [(file: String, reason: String)] = [
                ("slip.zip", "`..` component"), ("absolute.zip", "absolute"), ("bomb.zip", "expands more than 200 times"),
                ("link.tar.gz", "symbolic link"), ("slip.tar", "`..` component"),
            ]
            for (file, reason) in cases {
                let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: server.scratch.path + "/hostile/" + file)))
                let upload = try await Self.upload(server, bytes)
                let post = try await Self.postVersion(
                    server, #"{"upload": "\#(upload)", "version": "2.0", "sha256": "\#(Self.sha256(bytes))"}"#)
                #expect(post.status == 202, "\(file): \(post.text)")
                let entry = try await Self.finalState(server, job: try JSONAnswer(post)["version.job"]?.string)
                #expect(entry?["state"]?.string == "failed", "\(file)")
                let why = entry?["failureReason"]?.string ?? ""
                #expect(why.hasPrefix("the archive was refused: ") && why.contains(reason), "\(file): \(why)")
            }

            // A declared digest that is not the upload's.
            _ = try Self.writePack(server, name: "mission-2.0", version: "2.0")
            let made2 = try await ExternalTool.run(
                python, ["-c", "import shutil; shutil.make_archive('mission', 'zip', '.', 'mission-2.0')"],
                in: server.scratch.path + "/packs")
            #expect(made2.status == 0, "\(made2.error)")
            let good = Array(try Data(contentsOf: URL(fileURLWithPath: server.scratch.path + "/packs/mission.zip")))
            let upload = try await Self.upload(server, good)
            let wrong = String(repeating: "ab", count: 32)
            let post = try await Self.postVersion(server, #"{"upload": "\#(upload)", "version": "2.0", "sha256": "\#(wrong)"}"#)
            let entry = try await Self.finalState(server, job: try JSONAnswer(post)["version.job"]?.string)
            #expect(entry?["state"]?.string == "failed")
            #expect(entry?["failureReason"]?.string == "the upload's SHA-256 is \(Self.sha256(good)), not the declared \(wrong)")

            // Nothing was staged, nothing escaped, no scratch folder is left.
            #expect(try await server.application.ledger.catalogVersions(productId: Self.product).isEmpty)
            let data = server.scratch.path + "/data"
            for escaped in [data + "/escaped.txt", data + "/scratch/escaped.txt", "/tmp/absolute-escape.txt", data + "/tar-escaped.txt"] {
                #expect(!FileManager.default.fileExists(atPath: escaped), "\(escaped)")
            }
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: data + "/scratch")) ?? []).isEmpty)

            // The failed version may be posted again with the right digest, and is staged.
            let retry = try await Self.postVersion(
                server, #"{"upload": "\#(upload)", "version": "2.0", "sha256": "\#(Self.sha256(good))"}"#)
            #expect(retry.status == 202, "\(retry.text)")
            #expect(try await Self.finalState(server, job: try JSONAnswer(retry)["version.job"]?.string) == nil)
            #expect(try await server.application.ledger.catalogVersions(productId: Self.product).map(\.content.version) == ["2.0"])
        }
    }

    @Test func aScopedKeyCannotClaimContentIdsOutsideItsScopeNorUnsafeOnes() async throws {
        guard let python = ExternalTool.require("python3") else { return }
        try await UploadServer.with(engine: .sqlite) { server in
            try await Self.createProduct(server)
            // The same publisher, with a key for com.example. only (uploads belong to the publisher).
            let (scoped, _) = try await PublisherRequests.makeKey(
                server.application.ledger, publisher: "uploader", prefixes: ["com.example."])
            func post(_ json: String) async throws -> RawHTTPClient.Response {
                try await server.request(
                    "POST", "/v1/publisher/products/\(Self.product)/versions",
                    headers: ["Content-Type: application/json", "Authorization: Bearer \(scoped)"], body: Array(json.utf8), tus: false)
            }
            func zipped(contentId: String, name: String) async throws -> [UInt8] {
                let folder = try PublisherRequests.writePack(
                    in: server.scratch, at: "packs/\(name)", productId: Self.product, contentId: contentId, version: "1.0",
                    files: ["a.txt": Array("squat".utf8)])
                let made = try await ExternalTool.run(
                    python, ["-c", "import shutil; shutil.make_archive('\(name)', 'zip', '\(folder)')"], in: server.scratch.path + "/packs")
                #expect(made.status == 0, "\(made.error)")
                return Array(try Data(contentsOf: URL(fileURLWithPath: server.scratch.path + "/packs/\(name).zip")))
            }

            // Declared in the request: refused at once.
            let squat = try await zipped(contentId: "com.studiob.app", name: "squat")
            let upload = try await Self.upload(server, squat)
            let declared = try await post(
                #"{"upload": "\#(upload)", "version": "1.0", "sha256": "\#(Self.sha256(squat))", "contentId": "com.studiob.app"}"#)
            #expect(declared.status == 403, "\(declared.text)")
            #expect(PublisherRequests.errorCode(declared) == "content-out-of-scope")
            #expect(try await server.application.ledger.versionJobs(productId: Self.product).isEmpty)

            // Named only by pack.json: the job fails with the reason, and nothing is staged.
            let quiet = try await post(#"{"upload": "\#(upload)", "version": "1.0", "sha256": "\#(Self.sha256(squat))"}"#)
            #expect(quiet.status == 202, "\(quiet.text)")
            let failed = try await Self.finalState(server, job: try JSONAnswer(quiet)["version.job"]?.string)
            #expect(failed?["state"]?.string == "failed")
            let why = failed?["failureReason"]?.string ?? ""
            #expect(why.contains("com.studiob.app") && why.contains("scope"), "\(why)")

            // A content id that is no identifier (a path, a space) is refused however wide the key.
            let unsafe = try await zipped(contentId: "../x y/Contents", name: "unsafe")
            let unsafeUpload = try await Self.upload(server, unsafe)
            let wide = try await Self.postVersion(
                server, #"{"upload": "\#(unsafeUpload)", "version": "1.0", "sha256": "\#(Self.sha256(unsafe))"}"#)
            #expect(wide.status == 202, "\(wide.text)")
            let refused = try await Self.finalState(server, job: try JSONAnswer(wide)["version.job"]?.string)
            #expect(refused?["state"]?.string == "failed")
            #expect(refused?["failureReason"]?.string?.contains("\"contentId\" must be 1-128") == true, "\(String(describing: refused))")
            #expect(try await server.application.ledger.catalogVersions(productId: Self.product).isEmpty)

            // Within its scope, the same key stages.
            let own = try await zipped(contentId: "com.example.mission.extra", name: "own")
            let ownUpload = try await Self.upload(server, own)
            let fine = try await post(#"{"upload": "\#(ownUpload)", "version": "1.0", "sha256": "\#(Self.sha256(own))"}"#)
            #expect(fine.status == 202, "\(fine.text)")
            #expect(try await Self.finalState(server, job: try JSONAnswer(fine)["version.job"]?.string) == nil)
            #expect(
                try await server.application.ledger.catalogVersions(productId: Self.product).map(\.content.contentId) == [
                    "com.example.mission.extra"
                ])
        }
    }

    @Test func requestsJudgedAtOnce() async throws {
        try await UploadServer.with(engine: .sqlite) { server in
            try await Self.createProduct(server)
            let digest = String(repeating: "0", count: 64)
            let complete = try await Self.upload(server, Array("not an archive".utf8))
            let partial = try await server.create(length: 100)
            let partialId = String(partial.split(separator: "/").last ?? "")

            let cases: [(json: String, product: String, status: Int, code: String)] = [
                (#"{"upload": "nope", "version": "1", "sha256": "\#(digest)"}"#, Self.product, 400, "invalid-upload-id"),
                (#"{"upload": "\#(complete)", "version": "a b", "sha256": "\#(digest)"}"#, Self.product, 400, "invalid-version"),
                (#"{"upload": "\#(complete)", "version": "1", "sha256": "xyz"}"#, Self.product, 400, "invalid-sha256"),
                (
                    #"{"upload": "\#(complete)", "version": "1", "sha256": "\#(digest)", "contentId": "../x"}"#, Self.product, 400,
                    "invalid-content-id"
                ),
                (
                    #"{"upload": "\#(complete)", "version": "1", "sha256": "\#(digest)", "publishedAt": "yesterday"}"#, Self.product, 400,
                    "invalid-published-at"
                ),
                (#"{"upload": "\#(complete)", "version": "1", "sha256": "\#(digest)"}"#, "com.example.none", 404, "unknown-product"),
                (
                    #"{"upload": "\#(String(repeating: "f", count: 32))", "version": "1", "sha256": "\#(digest)"}"#, Self.product, 404,
                    "unknown-upload"
                ),
                (#"{"upload": "\#(partialId)", "version": "1", "sha256": "\#(digest)"}"#, Self.product, 409, "upload-incomplete"),
            ]
            for (json, product, status, code) in cases {
                let answer = try await Self.postVersion(server, json, product: product)
                #expect(answer.status == status, "\(json): \(answer.text)")
                #expect(PublisherRequests.errorCode(answer) == code, "\(json): \(answer.text)")
            }
            // Another publisher's upload is unknown to this one, through the versions route and through tus.
            let (otherKey, _) = try await PublisherRequests.makeKey(server.application.ledger, publisher: "rival")
            let json = #"{"upload": "\#(complete)", "version": "1", "sha256": "\#(digest)"}"#
            let rival = try await server.request(
                "POST", "/v1/publisher/products/\(Self.product)/versions",
                headers: ["Content-Type: application/json", "Authorization: Bearer \(otherKey)"],
                body: Array(json.utf8), tus: false)
            #expect(rival.status == 404, "\(rival.text)")
            #expect(PublisherRequests.errorCode(rival) == "unknown-upload")
            let head = try await server.request(
                "HEAD", "\(UploadRoutes.path)/\(complete)", headers: ["Tus-Resumable: 1.0.0", "Authorization: Bearer \(otherKey)"],
                tus: false)
            #expect(head.status == 404)
            let delete = try await server.request(
                "DELETE", "\(UploadRoutes.path)/\(complete)", headers: ["Tus-Resumable: 1.0.0", "Authorization: Bearer \(otherKey)"],
                tus: false)
            #expect(delete.status == 404)
            #expect(try await server.offset("\(UploadRoutes.path)/\(complete)") == 14)
            // Nothing was recorded by any of these.
            #expect(try await server.application.ledger.versionJobs(productId: Self.product).isEmpty)
        }
    }
}

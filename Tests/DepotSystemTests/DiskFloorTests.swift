@testable import DepotServerTestSupport
import DepotServices
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

/// `depot serve` whose data directory (bundles, uploads, the SQLite ledger) is a small filesystem the test fills: below
/// `storage.minFreeBytes` new uploads and appends are refused with 507 `insufficient-storage` while serving and ledger
/// writes go on; an append that meets a full disk (ENOSPC) answers 507 and counts nothing; a disk full to the last byte
/// costs the ledger's writes a 503 at worst, never a 500 or a crash; and once space is freed, uploads work again
/// without a restart.
@Suite("The disk: the free-space floor, a full disk, and recovery")
struct DiskFloorTests {
    static let floor: Int64 = 2 << 20
    static let packs: [LiveServer.PackSpec] = [
        LiveServer.PackSpec(
            directory: "game/level1", productId: "com.example.level1",
            files: ["notes.txt": Array(String(repeating: "A small disk. ", count: 200).utf8)])
    ]

    @Test func belowTheFloorUploadsAre507AndFreeingSpaceRecoversWithoutARestart() async throws {
        try await ServePlace.onEngine(.sqlite) { binary, _ in
            let scratch = try ScratchDirectory("diskFloor")
            defer { scratch.remove() }
            let place = ServePlace(scratch: scratch, databaseURL: nil)
            try await SmallFilesystem.with(at: place.data, bytes: 8 << 20) {
                try await Self.run(binary: binary, scratch: scratch, place: place)
            }
        }
    }

    static func run(binary: String, scratch: ScratchDirectory, place: ServePlace) async throws {
        try SharedInstances.writeConfiguration(in: scratch, settings: "\"storage\": {\"minFreeBytes\": \(floor)}")
        try SharedInstances.write(packs, in: scratch)
        let key = try await DepotCommand(scratch: scratch, databaseURL: nil).makeKey()
        let server = try await DepotProcess.start(binary: binary, arguments: place.arguments, environment: [:])
        defer { server.killIfRunning() }
        let port = try #require(server.port)
        let uploads = FloorTusRequests(port: port, key: key)
        let filler = place.data + "/filler"

        // Room on the disk: an upload is made and takes its first bytes.
        let upload = try await uploads.create(length: (64 << 10) + (3 << 20))
        #expect(try await uploads.append(upload, at: 0, bytes: 64 << 10).status == 204)

        // Below the floor: refused before anything is written, and said so in /metrics.
        try await SmallFilesystem.fill(filler, under: place.data, leaving: 1 << 20)
        // The server reads the free space at most once a second: until it sees the change, a creation still
        // succeeds, and that upload is removed again (the publisher's quota of live uploads stays free).
        try await eventually("a new upload refused below the floor", within: 60) {
            let answer = try await uploads.createAnswer(length: 10)
            if answer.status == 201, let location = answer.value("Location") {
                try await uploads.terminate(String(location.split(separator: "/").last ?? ""))
            }
            return answer.status == 507
        }
        let refused = try await uploads.createAnswer(length: 10)
        #expect(PublisherRequests.errorCode(refused) == "insufficient-storage", "\(refused.text)")
        #expect(refused.value("Retry-After") != nil)
        let append = try await uploads.append(upload, at: 64 << 10, bytes: 16 << 10)
        #expect(append.status == 507, "\(append.text)")
        #expect(PublisherRequests.errorCode(append) == "insufficient-storage")
        #expect(try await uploads.offset(upload) == 64 << 10)
        let metrics = try await Self.metrics(port)
        #expect(metrics.contains("\ndepot_disk_below_floor 1"), "\(metrics)")
        #expect(metrics.contains("depot_disk_free_bytes{path=\"\(place.data)\"}"))
        // Serving and the ledger's writes go on.
        let client = try RawHTTPClient(port: port)
        #expect(try await client.request(RawHTTPClient.get("/readyz")).status == 200)
        let belowFloor = try await Self.redeem(port, place: place)
        #expect(belowFloor.status == 200, "\(belowFloor.text)")

        // Above the floor but with less room than an append brings (3 MiB): the write meets ENOSPC, is answered 507,
        // and counts nothing.
        try await SmallFilesystem.remove(filler)
        try await SmallFilesystem.fill(filler, under: place.data, leaving: floor + (64 << 10))
        try await eventually("the floor passed again", within: 60) {
            try await Self.metrics(port).contains("\ndepot_disk_below_floor 0")
        }
        let full = try await uploads.append(upload, at: 64 << 10, bytes: 3 << 20)
        #expect(full.status == 507, "\(full.text)")
        #expect(PublisherRequests.errorCode(full) == "insufficient-storage")
        #expect(try await uploads.offset(upload) == 64 << 10)

        // Full to the last byte: the ledger's writes answer at worst 503, and the server goes on.
        try await SmallFilesystem.fill(filler + "-last", under: place.data, leaving: 0)
        let redeem = try await Self.redeem(port, place: place)
        #expect(redeem.status == 200 || redeem.status == 503, "\(redeem.text)")
        #expect(server.isRunning, "\(server.logText)")

        // Space freed: uploads work again, without a restart.
        try await SmallFilesystem.remove(filler)
        try await SmallFilesystem.remove(filler + "-last")
        var last = ""
        do {
            try await eventually("uploads accepted again once space was freed", within: 60) {
                let answer = try await uploads.createAnswer(length: 10)
                last = "\(answer.status) \(answer.text)"
                return answer.status == 201
            }
        } catch {
            Issue.record("the last answer: \(last); the server's log: \(server.logText)")
            throw error
        }
        let resumed = try await uploads.append(upload, at: 64 << 10, bytes: 3 << 20)
        #expect(resumed.status == 204, "\(resumed.text)")
        #expect(try await uploads.offset(upload) == (64 << 10) + (3 << 20))
        #expect(try await Self.redeem(port, place: place).status == 200)
        #expect(try await Self.metrics(port).contains("\ndepot_disk_below_floor 0"))
        #expect(!server.logText.contains("Fatal error"), "\(server.logText)")
    }

    static func metrics(_ port: Int) async throws -> String {
        let client = try RawHTTPClient(port: port)
        let answer = try await client.request(
            RawHTTPClient.get("/metrics", ["Authorization: Bearer \(SharedInstances.adminToken)"]))
        #expect(answer.status == 200)
        return answer.text
    }

    /// Redeems a new development transaction for the pack's product.
    static func redeem(_ port: Int, place: ServePlace) async throws -> RawHTTPClient.Response {
        let authority = try DevelopmentCertificateAuthority.loadOrCreate(directory: place.data + "/dev-ca")
        let builder = DevelopmentTransactionBuilder(
            bundleId: "com.example.depot.test", productId: "com.example.level1",
            type: DevelopmentTransactionBuilder.ProductType.nonConsumable)
        let jws = try authority.sign(payload: builder.payload())
        return try await PurchaseSteps.post(try RawHTTPClient(port: port), "/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}")
    }
}

/// tus requests of one publisher key, each on a connection of its own (an error answer closes its connection).
struct FloorTusRequests {
    let port: Int
    let key: String

    private var fields: [String] { ["Authorization: Bearer \(key)", "Tus-Resumable: 1.0.0"] }

    func createAnswer(length: Int) async throws -> RawHTTPClient.Response {
        let text = RawHTTPClient.get(
            "/v1/publisher/uploads", fields + ["Upload-Length: \(length)", "Content-Length: 0"], method: "POST")
        return try await RawHTTPClient(port: port).request(text)
    }

    /// Makes an upload; returns its id.
    func create(length: Int) async throws -> String {
        let answer = try await createAnswer(length: length)
        #expect(answer.status == 201, "\(answer.text)")
        let location = try #require(answer.value("Location"))
        return String(try #require(location.split(separator: "/").last))
    }

    func terminate(_ id: String) async throws {
        let answer = try await RawHTTPClient(port: port).request(
            RawHTTPClient.get("/v1/publisher/uploads/\(id)", fields + ["Content-Length: 0"], method: "DELETE"))
        #expect(answer.status == 204, "\(answer.text)")
    }

    func append(_ id: String, at offset: Int, bytes: Int) async throws -> RawHTTPClient.Response {
        var text = "PATCH /v1/publisher/uploads/\(id) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for field in fields + [
            "Upload-Offset: \(offset)", "Content-Type: application/offset+octet-stream", "Content-Length: \(bytes)",
        ] {
            text += field + "\r\n"
        }
        text += "\r\n" + String(repeating: "d", count: bytes)
        return try await RawHTTPClient(port: port).request(text)
    }

    func offset(_ id: String) async throws -> Int? {
        let answer = try await RawHTTPClient(port: port).request(
            RawHTTPClient.get("/v1/publisher/uploads/\(id)", fields, method: "HEAD"), head: true)
        return answer.value("Upload-Offset").flatMap { Int($0) }
    }
}

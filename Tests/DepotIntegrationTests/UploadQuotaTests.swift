@testable import DepotServerTestSupport
import DepotSettings
import DepotLedger
import Foundation
import Testing

@testable import DepotServer
@testable import DepotServices

/// Each publisher's quota of live uploads (`uploads.maxLivePerPublisher`, `uploads.maxLiveBytesPerPublisher`) on a
/// live server: counted from the ledger, refused the tus way (403 with a code; 413 for one upload over
/// `Tus-Max-Size`), and freed by finishing or terminating an upload.
@Suite("Upload quotas")
struct UploadQuotaTests {
    static let settings = #""maxLivePerPublisher": 3, "maxLiveBytesPerPublisher": 1000"#

    static func create(_ server: UploadServer, _ header: String) async throws -> RawHTTPClient.Response {
        try await server.request("POST", UploadRoutes.path, headers: [header])
    }

    static func expectRefused(_ answer: RawHTTPClient.Response, _ status: Int, _ code: String) {
        #expect(answer.status == status, "\(answer.text)")
        #expect(answer.value("Location") == nil)
        UploadRouteTests.expectErrorBody(answer, code)
    }

    @Test func theDefaultsAreTwentyUploadsAndSixtyFourGiB() async throws {
        try await UploadServer.with(engine: .sqlite) { server in
            let settings = server.application.configuration.uploads
            #expect(settings.maxLivePerPublisher == 20)
            #expect(settings.maxLiveBytesPerPublisher == 64 << 30)
        }
    }

    @Test(arguments: [
        (#""maxLivePerPublisher": 0"#, "uploads.maxLivePerPublisher must be from 1 to 100000, not 0"),
        (#""maxLiveBytesPerPublisher": -1"#, "uploads.maxLiveBytesPerPublisher must be from 1 to"),
    ])
    func badQuotaSettingsAreRefusedByName(settings: String, message: String) throws {
        #expect {
            _ = try LiveServer.loadConfiguration(#""uploads": {"# + settings + "}")
        } throws: { error in
            (error as? ConfigurationError)?.message.contains(message) == true
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func aPublisherOverItsQuotaIsRefusedUntilAnUploadEnds(engine: LedgerEngine) async throws {
        try await UploadServer.with(engine: engine, uploadSettings: Self.settings) { server in
            let first = try await server.create(length: 400)
            _ = try await server.create(length: 100)
            // 400 + 100 + 501 > 1000 bytes.
            Self.expectRefused(try await Self.create(server, "Upload-Length: 501"), 403, "upload-bytes-quota-exceeded")
            // A deferred length counts as Tus-Max-Size.
            Self.expectRefused(try await Self.create(server, "Upload-Defer-Length: 1"), 403, "upload-bytes-quota-exceeded")
            // One upload over Tus-Max-Size is 413, whatever the quota.
            Self.expectRefused(
                try await Self.create(server, "Upload-Length: \(UploadServer.maxSize + 1)"), 413, "upload-too-large")
            let third = try await server.create(length: 500)
            Self.expectRefused(try await Self.create(server, "Upload-Length: 0"), 403, "upload-count-quota-exceeded")
            // Refusals leave no upload behind.
            let files = try FileManager.default.contentsOfDirectory(atPath: server.application.uploadStore.directory)
            #expect(files.count == 3)

            // Finishing one does not free its place: its bytes stay until a version is staged from it or it expires.
            // Terminating one does.
            #expect(try await server.patch(third, offset: 0, [UInt8](repeating: 1, count: 500)).status == 204)
            Self.expectRefused(try await Self.create(server, "Upload-Length: 0"), 403, "upload-count-quota-exceeded")
            #expect(try await server.request("DELETE", first).status == 204)
            _ = try await server.create(length: 400)
            Self.expectRefused(try await Self.create(server, "Upload-Length: 0"), 403, "upload-count-quota-exceeded")
        }
    }

    /// The quota counts the uploads the ledger holds, however they got there: those of an earlier run of the server
    /// (recorded here straight into its ledger) count as well as those made since it started.
    @Test(arguments: LedgerEngine.tested)
    func uploadsRecordedBeforeTheServerStartedCount(engine: LedgerEngine) async throws {
        try await UploadServer.with(engine: engine, uploadSettings: Self.settings) { server in
            let now = server.clock.now()
            for index in 0..<2 {
                let id = String(repeating: String(index), count: 32)
                try await server.application.ledger.createUpload(
                    UploadRecord(
                        id: id, publisher: "uploader", length: 100, offset: 0, metadata: "", createdAt: now,
                        expiresAt: now + 60))
            }
            _ = try await server.create(length: 100)
            Self.expectRefused(try await Self.create(server, "Upload-Length: 1"), 403, "upload-count-quota-exceeded")
            // Once they expire they no longer count.
            server.clock.advance(by: 61)
            _ = try await server.create(length: 100)
        }
    }

    @Test func creationsAtOnceCannotPassTheQuotaTogether() async throws {
        try await UploadServer.with(engine: .sqlite, uploadSettings: Self.settings) { server in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<24 {
                    group.addTask { try await Self.create(server, "Upload-Length: 10").status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 201 }.count == 3, "\(statuses)")
            #expect(statuses.filter { $0 == 403 }.count == 21, "\(statuses)")
        }
    }
}

@testable import DepotServer
@testable import DepotServerTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `UploadRoutes` (tus 1.0) through the router without a socket: an upload made, read, appended to in two parts
/// and terminated, with the tus fields of each answer, and each header refused under its code.
@Suite("Upload routes without a socket")
struct UploadRouteRouterTests {
    static let tus = HTTPField.Name("Tus-Resumable")!
    static let offset = HTTPField.Name("Upload-Offset")!
    static let length = HTTPField.Name("Upload-Length")!

    /// Runs `body` with a router and a publisher key's fields (with `Tus-Resumable: 1.0.0`).
    static func withUploads(
        _ name: String = #function, _ body: @Sendable (DepotApplication, any TestClientProtocol, HTTPFields) async throws -> Void
    ) async throws {
        try await RoutedRequestTests.withRouter(name) { application, client in
            let key = try await PublisherRequests.makeKey(application.ledger).key
            try await body(application, client, [.authorization: "Bearer \(key)", tus: "1.0.0"])
        }
    }

    /// `fields` with `extra` set.
    static func with(_ fields: HTTPFields, _ extra: [HTTPField.Name: String]) -> HTTPFields {
        var all = fields
        for (name, value) in extra { all[name] = value }
        return all
    }

    /// Appends `bytes` at `at` to the upload at `path`.
    static func patch(
        _ client: any TestClientProtocol, _ path: String, _ fields: HTTPFields, at: Int, _ bytes: String
    ) async throws -> TestResponse {
        try await client.execute(
            uri: path, method: .patch,
            headers: with(fields, [offset: String(at), .contentType: "application/offset+octet-stream"]),
            body: ByteBuffer(string: bytes))
    }

    @Test func anUploadIsMadeReadAppendedToAndTerminated() async throws {
        try await Self.withUploads { _, client, fields in
            let created = try await client.execute(
                uri: UploadRoutes.path, method: .post, headers: Self.with(fields, [Self.length: "10"]))
            #expect(created.status == .created, "\(String(buffer: created.body))")
            let location = try #require(created.headers[.location])
            let path = try #require(URL(string: location)?.path)
            #expect(path.hasPrefix(UploadRoutes.path + "/") && location.hasPrefix("http"), "\(location)")
            #expect(created.headers[Self.offset] == "0")
            #expect(created.headers[HTTPField.Name("Upload-Expires")!] != nil)
            #expect(created.headers[Self.tus] == "1.0.0")

            let state = try await client.execute(uri: path, method: .head, headers: fields)
            #expect(state.status == .ok)
            #expect(state.headers[Self.offset] == "0" && state.headers[Self.length] == "10")
            #expect(state.headers[.cacheControl] == "no-store")

            let first = try await Self.patch(client, path, fields, at: 0, "0123")
            #expect(first.status == .noContent, "\(String(buffer: first.body))")
            #expect(first.headers[Self.offset] == "4")
            let behind = try await Self.patch(client, path, fields, at: 0, "0123")
            try RouterRequests.expectJSON(behind, .conflict, code: "upload-offset-mismatch")
            let rest = try await Self.patch(client, path, fields, at: 4, "456789")
            #expect(rest.status == .noContent)
            #expect(rest.headers[Self.offset] == "10")
            let more = try await Self.patch(client, path, fields, at: 10, "x")
            #expect(more.status == .conflict, "\(String(buffer: more.body))")

            let terminated = try await client.execute(uri: path, method: .delete, headers: fields)
            #expect(terminated.status == .noContent)
            let gone = try await client.execute(uri: path, method: .head, headers: fields)
            #expect(gone.status == .notFound)
            #expect(gone.body.readableBytes == 0)
            let appended = try await Self.patch(client, path, fields, at: 10, "x")
            try RouterRequests.expectJSON(appended, .notFound, code: "upload-not-found")
        }
    }

    @Test func anotherPublishersUploadIsNotFound() async throws {
        try await Self.withUploads { application, client, fields in
            let created = try await client.execute(
                uri: UploadRoutes.path, method: .post, headers: Self.with(fields, [Self.length: "10"]))
            let path = try #require(created.headers[.location].flatMap { URL(string: $0)?.path })
            let other = try await PublisherRequests.makeKey(application.ledger, publisher: "elsewhere").key
            let theirs = Self.with(fields, [.authorization: "Bearer \(other)"])
            #expect(try await client.execute(uri: path, method: .head, headers: theirs).status == .notFound)
            try RouterRequests.expectJSON(try await Self.patch(client, path, theirs, at: 0, "0"), .notFound, code: "upload-not-found")
        }
    }

    @Test func tusHeadersAreRefusedUnderTheirCodes() async throws {
        try await Self.withUploads { _, client, fields in
            var bare = fields
            bare[Self.tus] = nil
            let unversioned = try await client.execute(
                uri: UploadRoutes.path, method: .post, headers: Self.with(bare, [Self.length: "10"]))
            #expect(unversioned.status == .preconditionFailed, "\(String(buffer: unversioned.body))")
            #expect(try RoutedRequestTests.errorCode(unversioned) == "tus-version-unsupported")
            #expect(unversioned.headers[HTTPField.Name("Tus-Version")!] != nil)

            for (extra, code) in [
                ([Self.length: "-1"], "upload-header-invalid"), ([Self.length: "ten"], "upload-header-invalid"),
                ([:], "upload-header-invalid"),
                ([Self.length: "10", HTTPField.Name("Upload-Metadata")!: "filename !!!"], "upload-metadata-invalid"),
            ] as [([HTTPField.Name: String], String)] {
                let refused = try await client.execute(uri: UploadRoutes.path, method: .post, headers: Self.with(fields, extra))
                try RouterRequests.expectJSON(refused, .badRequest, code: code)
            }

            let created = try await client.execute(
                uri: UploadRoutes.path, method: .post, headers: Self.with(fields, [Self.length: "10"]))
            let path = try #require(created.headers[.location].flatMap { URL(string: $0)?.path })
            let checksum = try await client.execute(
                uri: path, method: .patch,
                headers: Self.with(
                    fields,
                    [
                        Self.offset: "0", .contentType: "application/offset+octet-stream",
                        HTTPField.Name("Upload-Checksum")!: "md5 AAAA",
                    ]),
                body: ByteBuffer(string: "0123"))
            try RouterRequests.expectJSON(checksum, .badRequest, code: "upload-checksum-unsupported")
        }
    }
}

@testable import DepotServerTestSupport
import DepotCore
import DepotServer
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

@Suite("GET/HEAD /v1/bundles/{digest} on a live server")
struct BundleRouteTests {
    @Test func grantOpensTheBundleByHeaderAndByQuery() async throws {
        try await LiveServer.with { server in
            let digest = try server.version("com.example.level1").digest
            let expected = try server.bundleBytes(digest.hex)
            let client = try RawHTTPClient(port: server.port)
            let byHeader = try await client.request(
                RawHTTPClient.get("/v1/bundles/\(digest)", ["Authorization: Bearer \(server.grant(digest.hex))"]))
            #expect(byHeader.status == 200)
            #expect(byHeader.body == expected)
            #expect(byHeader.value("ETag") == "\"\(digest)\"")
            #expect(byHeader.value("Content-Length") == String(expected.count))
            #expect(byHeader.value("Accept-Ranges") == "bytes")
            #expect(byHeader.value("Content-Type") == "application/zip")
            #expect(byHeader.value("Cache-Control") == "public, max-age=31536000, immutable")
            #expect(byHeader.value("Last-Modified") == "Sun, 01 Mar 2026 09:00:00 GMT")
            #expect(byHeader.value("Date") != nil)
            #expect(byHeader.value("Transfer-Encoding") == nil)
            let byQuery = try await client.request(RawHTTPClient.get("/v1/bundles/\(digest)?grant=\(server.grant(digest.hex))"))
            #expect(byQuery.status == 200)
            #expect(byQuery.body == expected)
        }
    }

    @Test func headHasTheHeadersOfGetAndNoBody() async throws {
        try await LiveServer.with { server in
            let digest = try server.version("com.example.level1").digest
            let grant = "Authorization: Bearer \(server.grant(digest.hex))"
            let client = try RawHTTPClient(port: server.port)
            let get = try await client.request(RawHTTPClient.get("/v1/bundles/\(digest)", [grant]))
            let head = try await client.request(RawHTTPClient.get("/v1/bundles/\(digest)", [grant], method: "HEAD"), head: true)
            #expect(head.status == 200)
            let ignored: Set<String> = ["date"]
            let getFields = get.headers.filter { !ignored.contains($0.name.lowercased()) }.map { "\($0.name): \($0.value)" }
            let headFields = head.headers.filter { !ignored.contains($0.name.lowercased()) }.map { "\($0.name): \($0.value)" }
            #expect(getFields == headFields)
            // The connection stays usable: no body bytes were sent after the HEAD answer.
            let again = try await client.request(RawHTTPClient.get("/v1/bundles/\(digest)", [grant, "Range: bytes=0-9"]))
            #expect(again.status == 206)
            #expect(again.body == Array(try server.bundleBytes(digest.hex).prefix(10)))
        }
    }

    @Test func refusalsCarryTheirStatusAndJSONError() async throws {
        try await LiveServer.with { server in
            let digest = try server.version("com.example.level1").digest
            let other = try server.version("com.example.monthly.2026-09").digest
            let unknown = String(repeating: "0", count: 64)
            let expired = server.application.grants.issue(digest: digest, expiresAt: DepotApplication.systemClock() - 1)
            let cases: [(String, [String], Int, String)] = [
                ("/v1/bundles/\(digest)", [], 401, "grant-required"),
                ("/v1/bundles/\(digest)", ["Authorization: Basic dXNlcjpwYXNz"], 401, "grant-required"),
                ("/v1/bundles/\(digest)", ["Authorization: Bearer nonsense"], 403, "grant-malformed"),
                ("/v1/bundles/\(digest)", ["Authorization: Bearer \(expired)"], 403, "grant-expired"),
                ("/v1/bundles/\(digest)", ["Authorization: Bearer \(server.grant(other.hex))"], 403, "grant-bad-signature"),
                ("/v1/bundles/\(digest)?grant=\(server.grant(other.hex))", [], 403, "grant-bad-signature"),
                ("/v1/bundles/\(unknown)", ["Authorization: Bearer \(server.grant(unknown))"], 404, "not-found"),
                ("/v1/bundles/\(digest.hex.uppercased())", [], 404, "not-found"),
                ("/v1/bundles/../../etc/passwd", [], 404, "not-found"),
                ("/v1/bundles/", [], 404, "not-found"),
            ]
            let client = try RawHTTPClient(port: server.port)
            for (path, headers, status, code) in cases {
                let response = try await client.request(RawHTTPClient.get(path, headers))
                #expect(response.status == status, "\(path) \(headers)")
                #expect(response.value("Content-Type") == "application/json")
                #expect(response.value("Date") != nil)
                let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: [String: String]]
                #expect(body?["error"]?["code"] == code, "\(path) \(headers)")
                #expect(body?["error"]?["message"]?.isEmpty == false)
            }
            let post = try await client.request(RawHTTPClient.get("/v1/bundles/\(digest)", ["Content-Length: 0"], method: "POST"))
            #expect(post.status == 405)
            #expect(post.value("Allow") == "GET, HEAD")
        }
    }

    @Test func rangesConditionalsAndMultipartOverTheWire() async throws {
        try await LiveServer.with { server in
            let version = try server.version("com.example.level1")
            let bytes = try server.bundleBytes(version.digest.hex)
            let grant = "Authorization: Bearer \(server.grant(version.digest.hex))"
            let path = "/v1/bundles/\(version.digest)"
            let client = try RawHTTPClient(port: server.port)

            let suffix = try await client.request(RawHTTPClient.get(path, [grant, "Range: bytes=-100"]))
            #expect(suffix.status == 206)
            #expect(suffix.value("Content-Range") == "bytes \(bytes.count - 100)-\(bytes.count - 1)/\(bytes.count)")
            #expect(suffix.body == Array(bytes.suffix(100)))

            let beyond = try await client.request(RawHTTPClient.get(path, [grant, "Range: bytes=\(bytes.count)-"]))
            #expect(beyond.status == 416)
            #expect(beyond.value("Content-Range") == "bytes */\(bytes.count)")

            let notModified = try await client.request(RawHTTPClient.get(path, [grant, "If-None-Match: W/\"\(version.digest)\""]))
            #expect(notModified.status == 304)
            #expect(notModified.value("ETag") == "\"\(version.digest)\"")
            #expect(notModified.value("Date") != nil)

            let failed = try await client.request(RawHTTPClient.get(path, [grant, "If-Match: \"other\""]))
            #expect(failed.status == 412)

            let staleIfRange = try await client.request(RawHTTPClient.get(path, [grant, "Range: bytes=0-9", "If-Range: \"old\""]))
            #expect(staleIfRange.status == 200)
            #expect(staleIfRange.body.count == bytes.count)

            let twoRanges = try await client.request(RawHTTPClient.get(path, [grant, "Range: bytes=0-9, 100-109"]))
            #expect(twoRanges.status == 206)
            let contentType = try #require(twoRanges.value("Content-Type"))
            #expect(contentType.hasPrefix("multipart/byteranges; boundary="))
            let boundary = String(contentType.split(separator: "=", maxSplits: 1)[1])
            let text = String(decoding: twoRanges.body, as: UTF8.self)
            #expect(text.hasPrefix("--\(boundary)\r\n"))
            #expect(text.hasSuffix("\r\n--\(boundary)--\r\n"))
            #expect(text.contains("Content-Range: bytes 0-9/\(bytes.count)"))
            #expect(text.contains("Content-Range: bytes 100-109/\(bytes.count)"))
        }
    }

    @Test func hostileHeaderValuesNeverYieldA5xx() async throws {
        try await LiveServer.with { server in
            let digest = try server.version("com.example.monthly.2026-09").digest
            let grant = "Authorization: Bearer \(server.grant(digest.hex))"
            var random = SeededBytes(seed: 7)
            let alphabet = Array("bytes=0123456789-,; \t\"W/*GMTSunNov:abcdef".utf8)
            let names = ["Range", "If-Range", "If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since", "Authorization"]
            let client = try RawHTTPClient(port: server.port)
            for round in 0..<300 {
                let length = Int(random.next() % 80)
                let value = String(decoding: (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }, as: UTF8.self)
                let name = names[round % names.count]
                let headers = name == "Authorization" ? ["\(name): \(value)"] : [grant, "\(name): \(value)", "\(name): \(value)"]
                let response = try await client.request(RawHTTPClient.get("/v1/bundles/\(digest)", headers))
                #expect(response.status < 500, "\(name): \(value)")
            }
        }
    }

    @Test func malformedRequestIsAnswered400() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let response = try await client.request("GET /v1/bundles/x HTTP/1.1\r\nHost: a\r\nBad Header Without Colon\r\n\r\n")
            #expect(response.status == 400)
        }
    }
}

@testable import DepotServerTestSupport
import DepotCore
@testable import DepotOrigin
import Foundation
import Testing

@testable import DepotServer

/// RFC 9112 §3.2.2: a server MUST accept the absolute form of a request target.
@Suite("Bundle requests in absolute form on a live server")
struct AbsoluteFormTargetTests {
    @Test func absoluteFormIsServedLikeOriginForm() async throws {
        try await LiveServer.with { server in
            let digest = try server.version("com.example.level1").digest
            let expected = try server.bundleBytes(digest.hex)
            let grant = server.grant(digest.hex)
            let client = try RawHTTPClient(port: server.port)
            let targets = [
                "http://127.0.0.1:\(server.port)/v1/bundles/\(digest)?grant=\(grant)",
                "http://depot.example/v1/bundles/\(digest)?grant=\(grant)",
                "HTTPS://depot.example:443/v1/bundles/\(digest)?grant=\(grant)",
            ]
            for target in targets {
                let response = try await client.request(RawHTTPClient.get(target))
                #expect(response.status == 200, "\(target)")
                #expect(response.body == expected, "\(target)")
            }
            let ranged = try await client.request(
                RawHTTPClient.get("http://depot.example/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)", "Range: bytes=0-9"]))
            #expect(ranged.status == 206)
            #expect(ranged.body == Array(expected.prefix(10)))
            // Without a grant the bundle handler answers, as for the origin form.
            let refused = try await client.request(RawHTTPClient.get("http://depot.example/v1/bundles/\(digest)"))
            #expect(refused.status == 401)
            #expect(refused.text.contains("grant-required"))
        }
    }

    @Test(
        arguments: [
            ("/v1/bundles/abc?grant=g", "abc", "grant=g"),
            ("http://h/v1/bundles/abc?grant=g", "abc", "grant=g"),
            ("http://h:8080/v1/bundles/abc", "abc", nil),
            ("hTtPs://h/v1/bundles/abc?x", "abc", "x"),
        ] as [(String, String, String?)])
    func absoluteAndOriginFormsSplitAlike(uri: String, digest: String, query: String?) throws {
        let target = try #require(BundleRequestTarget(uri: uri))
        #expect(target.digest == Substring(digest))
        #expect(target.query == query.map { Substring($0) })
    }

    @Test(arguments: [
        "http://h?/v1/bundles/abc", "http://h", "http:/v1/bundles/abc", "ftp://h/v1/bundles/abc",
        "http://h/v2/bundles/abc", "/v1/bundle/abc", "*", "http://h#/v1/bundles/abc", "v1/bundles/abc",
    ])
    func otherTargetsAreNotBundles(uri: String) {
        #expect(BundleRequestTarget(uri: uri) == nil)
    }
}

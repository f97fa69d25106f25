@testable import DepotServerTestSupport
import DepotSettings
import Crypto
import DepotLedger
import DepotTestSupport
import Foundation
import HTTPTypes
import NIOCore
import Testing

@testable import DepotServer
@testable import DepotServices

/// tus creation answers an absolute `Location` on the origin the client reached (as tusd does): built from `Host`,
/// from the forwarded fields of a trusted proxy only, never from a malformed host.
@Suite("Upload locations")
struct UploadLocationTests {
    static let idPattern = "[0-9a-f]{32}"

    /// `POST /v1/publisher/uploads` from `source` with `host` (nil: no Host line) and `headers`; returns `Location`.
    static func location(
        _ server: UploadServer, host: String?, headers: [String] = [], source: String? = nil
    ) async throws -> String {
        let client = try RawHTTPClient(port: server.port, source: source)
        var text = "POST \(UploadRoutes.path) HTTP/1.1\r\n"
        if let host { text += "Host: \(host)\r\n" }
        for line in UploadServer.tusHeaders + ["Upload-Length: 10", "Content-Length: 0"] + headers { text += line + "\r\n" }
        let answer = try await client.request(text + "\r\n")
        #expect(answer.status == 201, "\(answer.status) \(answer.text)")
        return try #require(answer.value("Location"))
    }

    static func expect(_ location: String, origin: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let prefix = origin + UploadRoutes.path + "/"
        #expect(location.hasPrefix(prefix), "\(location)", sourceLocation: sourceLocation)
        #expect(
            location.dropFirst(prefix.count).wholeMatch(of: try! Regex(idPattern)) != nil, "\(location)",
            sourceLocation: sourceLocation)
    }

    @Test func theLocationIsAbsoluteOnTheHostTheClientAsked() async throws {
        try await UploadServer.with(engine: .sqlite) { server in
            let location = try await Self.location(server, host: "127.0.0.1:\(server.port)")
            Self.expect(location, origin: "http://127.0.0.1:\(server.port)")
            // The URL works as it stands.
            let path = try UploadServer.path(ofLocation: location)
            #expect(try await server.offset(path) == 0)
            Self.expect(try await Self.location(server, host: "uploads.example.com"), origin: "http://uploads.example.com")
            Self.expect(try await Self.location(server, host: "[::1]:8080"), origin: "http://[::1]:8080")
        }
    }

    @Test(arguments: ["evil.example/x?y=", "a b", "<script>", "host:99999", "host:", "[::1", "x\"y", "h@st", ""])
    func aMalformedHostIsNeverEchoed(host: String) async throws {
        try await UploadServer.with(engine: .sqlite) { server in
            let location = try await Self.location(server, host: host)
            Self.expect(location, origin: "http://127.0.0.1:\(server.port)")
        }
    }

    @Test func forwardedFieldsCountOnlyFromATrustedProxy() async throws {
        try await UploadServer.with(engine: .sqlite, serverSettings: #""trustedProxies": ["127.0.0.1"]"#) { server in
            let host = "127.0.0.1:\(server.port)"
            let xForwarded = ["X-Forwarded-Proto: https", "X-Forwarded-Host: depot.example.com, inner.example"]
            Self.expect(try await Self.location(server, host: host, headers: xForwarded), origin: "https://depot.example.com")
            let forwarded = [#"Forwarded: for=192.0.2.1;proto=https;host="depot.example.com:8443", for=10.0.0.1"#]
            Self.expect(
                try await Self.location(server, host: host, headers: forwarded), origin: "https://depot.example.com:8443")
            // A forwarded host that is malformed is not used; nor is a scheme other than http or https.
            let bad = ["X-Forwarded-Proto: javascript", "X-Forwarded-Host: evil.example/x"]
            Self.expect(try await Self.location(server, host: host, headers: bad), origin: "http://\(host)")
            // Another address is not a trusted proxy: its forwarded fields are ignored.
            Self.expect(
                try await Self.location(server, host: host, headers: xForwarded, source: "127.0.0.2"), origin: "http://\(host)")
        }
    }

    /// aiotus, an asyncio tus client independent of the tus project, creates and uploads a pack: it accepts only an
    /// absolute `Location` (a relative one fails with "Appending path ... starting from slash is forbidden").
    @Test func aiotusUploadsAPack() async throws {
        guard let python = try await PythonPackage.python(importing: "aiotus", package: "aiotus") else { return }
        try await UploadServer.with(engine: .sqlite) { server in
            var random = SeededBytes(seed: 41)
            let pack = random.bytes(5 << 20)
            let file = server.scratch.path + "/pack.zip"
            try Data(pack).write(to: URL(fileURLWithPath: file))
            let script = #"""
                import asyncio, logging, sys
                import aiotus
                logging.basicConfig(level=logging.DEBUG)
                port, path, token = sys.argv[1], sys.argv[2], sys.argv[3]
                async def main():
                    with open(path, "rb") as f:
                        location = await aiotus.upload(
                            f"http://127.0.0.1:{port}/v1/publisher/uploads", f, {"filename": b"pack.zip"},
                            headers={"Authorization": "Bearer " + token}, chunksize=1 << 20,
                            config=aiotus.RetryConfiguration(retry_attempts=1))
                    print("LOCATION " + str(location), flush=True)
                asyncio.run(main())
                """#
            let result = try await ExternalTool.run(python, ["-c", script, String(server.port), file, UploadServer.token])
            #expect(result.status == 0, "\(result.output) \(result.error)")
            let line = try #require(
                result.output.split(separator: "\n").first { $0.hasPrefix("LOCATION ") }, "\(result.output) \(result.error)")
            let location = String(line.dropFirst("LOCATION ".count))
            Self.expect(location, origin: "http://127.0.0.1:\(server.port)")
            let path = try UploadServer.path(ofLocation: location)
            #expect(try await server.offset(path) == Int64(pack.count))
            let id = String(path.split(separator: "/").last ?? "")
            let stored = try Data(contentsOf: URL(fileURLWithPath: server.file(id)))
            #expect(SHA256.hash(data: stored) == SHA256.hash(data: pack))
            let record = try #require(try await server.application.ledger.upload(id: id))
            #expect(UploadMetadata.decode(record.metadata)?.text("filename") == "pack.zip")
        }
    }
}

/// ``RequestOrigin``'s rules, without a socket.
@Suite("Request origin")
struct RequestOriginTests {
    @Test(
        arguments: [
            ("depot.example.com", true), ("depot.example.com:443", true), ("127.0.0.1", true), ("[::1]:8080", true),
            ("[2001:db8::1]", true), ("a_b~c-d.e", true), ("", false), ("host:", false), ("host:0x1", false),
            ("host:65536", false), ("host:123456", false), (":80", false), ("[::1", false), ("[]", false),
            ("[::1]x", false), ("[g::1]", false), ("a b", false), ("a/b", false), ("a?b", false), ("a#b", false),
            ("user@host", false), ("a%20b", false), ("a\"b", false), ("a:1:2", false),
            (String(repeating: "a", count: 254), false), (String(repeating: "a", count: 253), true),
        ])
    func authority(text: String, valid: Bool) {
        #expect(RequestOrigin.isAuthority(text) == valid, "\(text)")
    }

    @Test func forwardedTakesTheFirstElementsProtoAndHost() {
        let parsed = RequestOrigin.forwarded([#"For=192.0.2.1; Proto=HTTPS;host="a.example:8443", proto=http;host=b"#])
        #expect(parsed.proto == "HTTPS")
        #expect(parsed.host == "a.example:8443")
        #expect(RequestOrigin.forwarded([]).proto == nil)
        #expect(RequestOrigin.forwarded(["for=x"]).host == nil)
    }

    @Test func theOriginComesFromTheTrustedPeerOrTheHostOrTheLocalAddress() throws {
        let proxies = try TrustedProxies(["10.0.0.0/8"])
        let origin = RequestOrigin(tls: true, trustedProxies: proxies)
        let local = try SocketAddress(ipAddress: "::1", port: 8443)
        #expect(origin.origin(authority: "d.example", headers: [:], peer: "192.0.2.1", local: local) == "https://d.example")
        #expect(origin.origin(authority: "bad host", headers: [:], peer: "192.0.2.1", local: local) == "https://[::1]:8443")
        #expect(origin.origin(authority: nil, headers: [:], peer: "192.0.2.1", local: nil) == "https://localhost")
        let forwarded: HTTPFields = [.xForwardedProto: "http", .xForwardedHost: "edge.example"]
        #expect(
            origin.origin(authority: "d.example", headers: forwarded, peer: "10.1.2.3", local: local)
                == "http://edge.example")
        #expect(
            origin.origin(authority: "d.example", headers: forwarded, peer: "192.0.2.1", local: local)
                == "https://d.example")
    }
}

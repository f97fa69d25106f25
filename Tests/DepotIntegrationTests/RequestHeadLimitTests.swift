@testable import DepotServerTestSupport
import DepotSettings
import DepotCore
@testable import DepotOrigin
import DepotServer
import Foundation
import Testing

/// A request head's text with `fields` after Host.
private func head(_ target: String, _ fields: [String] = []) -> String {
    RawHTTPClient.get(target, fields)
}

@Suite("Request heads over the limits: 414 for a long target, 431 for a large header section, then close")
struct RequestHeadLimitTests {
    @Test func aTwentyKilobyteTargetIsAnswered414AndClosed() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let response = try await client.request(head("/v1/products?pad=" + String(repeating: "a", count: 20_000)))
            #expect(response.status == 414)
            #expect(response.text.contains("\"code\":\"uri-too-long\""), "\(response.text)")
            #expect(response.value("Connection") == "close")
            #expect(await client.isClosedByPeer())
        }
    }

    @Test func aSeventyKilobyteHeaderSectionIsAnswered431AndClosed() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let fields = (0..<700).map { "X-Filler-\($0): " + String(repeating: "v", count: 90) }
            let response = try await client.request(head("/v1/products", fields))
            #expect(response.status == 431)
            #expect(response.text.contains("\"code\":\"header-fields-too-large\""), "\(response.text)")
            #expect(response.value("Connection") == "close")
            #expect(await client.isClosedByPeer())
        }
    }

    @Test func moreThanAHundredFieldsAreAnswered431() async throws {
        try await LiveServer.with { server in
            let digest = try server.version("com.example.monthly.2026-09").digest
            let client = try RawHTTPClient(port: server.port)
            let fields = ["Authorization: Bearer \(server.grant(digest.hex))"] + (0..<100).map { "X-\($0): v" }
            let response = try await client.request(head("/v1/bundles/\(digest)", fields))
            #expect(response.status == 431)
            #expect(await client.isClosedByPeer())
        }
    }

    @Test func headsJustInsideTheLimitsAreAnswered() async throws {
        try await LiveServer.with { server in
            let digest = try server.version("com.example.monthly.2026-09").digest
            let client = try RawHTTPClient(port: server.port)
            // A target of exactly 8 KiB, and a head of 99 fields besides Host.
            let target = "/v1/products?pad="
            let routed = try await client.request(head(target + String(repeating: "a", count: 8192 - target.utf8.count)))
            #expect(routed.status == 200)
            let fields = ["Authorization: Bearer \(server.grant(digest.hex))"] + (0..<98).map { "X-\($0): v" }
            let bundle = try await client.request(head("/v1/bundles/\(digest)", fields))
            #expect(bundle.status == 200)
            let bytes = try server.bundleBytes(digest.hex)
            #expect(bundle.body == bytes)
        }
    }

    @Test func pipelinedRequestsBeforeAnOverlongOneAreAnsweredFirst() async throws {
        try await LiveServer.with { server in
            let digest = try server.version("com.example.monthly.2026-09").digest
            let client = try RawHTTPClient(port: server.port)
            try await client.send(
                head("/v1/bundles/\(digest)", ["Authorization: Bearer \(server.grant(digest.hex))"]) + head("/v1/products")
                    + head("/v1/products?pad=" + String(repeating: "a", count: 20_000))
                    + head("/v1/bundles/\(digest)", ["Authorization: Bearer \(server.grant(digest.hex))"]))
            let first = try await client.readResponse()
            let second = try await client.readResponse()
            let third = try await client.readResponse()
            let bytes = try server.bundleBytes(digest.hex)
            #expect(first.status == 200 && first.body == bytes)
            #expect(second.status == 200 && second.text.hasPrefix("{\"products\""))
            #expect(third.status == 414)
            #expect(await client.isClosedByPeer())
        }
    }
}

@Suite("Request head limits in Config/depot.json")
struct RequestHeadLimitConfigurationTests {
    private func load(_ server: String, name: String = #function) throws -> DepotConfiguration {
        let scratch = try ScratchDirectory(name)
        defer { scratch.remove() }
        try scratch.write("Config/products.json", "{\"products\": []}")
        try scratch.write(
            "Config/depot.json",
            "{\"server\": {\(server)}, \"appStore\": {\"trustDevelopmentRoot\": true}, \"grants\": {\"keys\": [{\"id\": \"k\", \"secret\": \"\(Data(repeating: 1, count: 32).base64EncodedString())\"}]}}"
        )
        return try ConfigurationLoader.load(overrides: ConfigurationOverrides(configPath: scratch.path + "/Config"), environment: [:])
    }

    @Test func defaultsAreEightKilobytesSixteenKilobytesAndAHundredFields() throws {
        let limits = try load("").http.requestHeadLimits
        #expect(limits == RequestHeadLimits(maxTargetBytes: 8192, maxHeadBytes: 16384, maxFields: 100))
    }

    @Test func settingsAreRead() throws {
        let limits = try load("\"maxRequestTargetBytes\": 4096, \"maxRequestHeadBytes\": 65536, \"maxRequestHeaderFields\": 50")
            .http.requestHeadLimits
        #expect(limits == RequestHeadLimits(maxTargetBytes: 4096, maxHeadBytes: 65536, maxFields: 50))
    }

    @Test(arguments: [
        ("\"maxRequestTargetBytes\": 10", "server.maxRequestTargetBytes must be from 64 to 1048576, not 10"),
        ("\"maxRequestHeadBytes\": 2000000", "server.maxRequestHeadBytes must be from 1024 to 1048576, not 2000000"),
        ("\"maxRequestHeaderFields\": 0", "server.maxRequestHeaderFields must be from 8 to 10000, not 0"),
    ])
    func outOfRangeSettingsAreRefusedByName(setting: String, message: String) throws {
        let error = #expect(throws: ConfigurationError.self) { try load(setting) }
        #expect(error?.message.hasSuffix(message) == true, "\(error?.message ?? "")")
    }
}

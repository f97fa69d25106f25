import DepotSettings
import DepotLedger
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing

@testable import DepotServer
@testable import DepotServices

/// The time an upload test's server expires uploads by: starts at the real now, moves only when told.
final class TestClock: Sendable {
    private let seconds: Mutex<Int64>

    init() { seconds = Mutex(DepotApplication.systemClock()) }

    /// Now, in seconds since 1970.
    func now() -> Int64 { seconds.withLock { $0 } }

    /// Moves time on.
    func advance(by delta: Int64) { seconds.withLock { $0 += delta } }
}

/// A Depot server for the upload tests on one ledger engine, with a small `Tus-Max-Size`, a clock the
/// test moves, and a reaper the test runs itself (the server's own waits an hour between runs).
struct UploadServer {
    let server: LiveServer
    let clock: TestClock
    var port: Int { server.port }
    var application: DepotApplication { server.application }
    var scratch: ScratchDirectory { server.scratch }

    /// The publisher key that opens the upload routes (recorded in the server's ledger at start).
    static let token = "dpk_" + String(repeating: "u", count: 43)
    /// `Tus-Max-Size` of the test configuration.
    static let maxSize: Int64 = 64 << 20
    /// `Upload-Expires` lifetime of the test configuration.
    static let expirySeconds: Int64 = 3600
    /// The header lines every tus request of the tests carries.
    static let tusHeaders = ["Tus-Resumable: 1.0.0", "Authorization: Bearer \(token)"]

    /// Starts a server on `engine`, runs `body`, shuts it down. PostgreSQL without a server: skipped (CI: fails).
    ///
    /// The request timeout is generous by default (a loaded machine can pause a test for longer than the
    /// server's 30 s between two steps of one request); tests of the timeout set their own.
    static func with(
        _ name: String = #function, engine: LedgerEngine, requestTimeoutSeconds: Int = 300,
        serverSettings: String = "", uploadSettings: String = "", body: (UploadServer) async throws -> Void
    ) async throws {
        let settings = (server: serverSettings, uploads: uploadSettings)
        switch engine {
        case .postgres:
            try await PostgresTestDatabase.with(name) { database in
                try await run(
                    name, ledgerURL: database.url, requestTimeoutSeconds: requestTimeoutSeconds, settings: settings, body: body)
            }
        case .sqlite:
            try await run(name, ledgerURL: nil, requestTimeoutSeconds: requestTimeoutSeconds, settings: settings, body: body)
        }
    }

    private static func run(
        _ name: String, ledgerURL: String?, requestTimeoutSeconds: Int, settings: (server: String, uploads: String),
        body: (UploadServer) async throws -> Void
    ) async throws {
        let scratch = try ScratchDirectory(name)
        defer { scratch.remove() }
        let secret = Data(LiveServer.secret).base64EncodedString()
        try scratch.write(
            "Config/depot.json",
            """
            {"grants": {"activeKeyId": "test", "lifetimeSeconds": 600, "keys": [{"id": "test", "secret": "\(secret)"}]},
             "app": {"bundleId": "com.example.depot.test"}, "appStore": {"trustDevelopmentRoot": true},
             "admin": {"tokenSHA256": ["\(SharedInstances.hexSHA256(token))"]},
             "server": {"idleTimeoutSeconds": 120, "requestTimeoutSeconds": \(requestTimeoutSeconds), "shutdownGraceSeconds": 5\(
                settings.server.isEmpty ? "" : ", " + settings.server)},
             "uploads": {"maxSize": \(maxSize), "expirySeconds": \(expirySeconds), "reaperIntervalSeconds": 3600\(
                settings.uploads.isEmpty ? "" : ", " + settings.uploads)}}
            """)
        try scratch.write(
            "Config/products.json", "{\"products\": [{\"id\": \"com.example.coins\", \"type\": \"consumable\", \"title\": \"Coins\"}]}")
        try SharedInstances.write(
            [LiveServer.PackSpec(directory: "coins", productId: "com.example.coins", files: ["c.json": Array("{}".utf8)])],
            in: scratch)
        var configuration = try ConfigurationLoader.load(
            overrides: ConfigurationOverrides(
                configPath: scratch.path + "/Config", port: 0, dataDirectory: scratch.path + "/data",
                contentDirectory: scratch.path + "/content", databaseURL: ledgerURL),
            environment: [:])
        // A loaded test machine can hold a PostgreSQL statement past serve's 5 s; these tests do not measure it.
        configuration.ledgerWaitSeconds = max(configuration.ledgerWaitSeconds, 60)
        var logger = Logger(label: "depot-test")
        logger.logLevel = .warning
        let application = try await DepotApplication.prepare(configuration, logger: logger)
        var key = PublisherKey.make(publisher: "uploader", productPrefixes: [], now: 1).record
        key.keyDigest = PublisherKey.digest(of: token)
        try await application.ledger.createPublisherKey(key)
        let clock = TestClock()
        let running = try await ListeningGroup.start(logger: logger) { ready in
            application.makeApplication(uploadClock: { clock.now() }, onRunning: ready)
        }
        let server = LiveServer(
            port: running.port, application: application, scratch: scratch,
            shutdown: { await running.group.triggerGracefulShutdown() })
        do {
            try await body(UploadServer(server: server, clock: clock))
        } catch {
            await running.stopAfterFailure()
            await application.close()
            throw error
        }
        try await running.stop()
        await application.close()
    }

    /// A reaper over the server's ledger and store, on the test's clock.
    func reaper() -> UploadReaper {
        UploadReaper(
            ledger: application.ledger, store: application.uploadStore, clock: { clock.now() }, interval: .seconds(3600),
            logger: Logger(label: "depot-test"))
    }

    /// The file holding an upload's bytes.
    func file(_ id: String) -> String { application.uploadStore.path(id) }

    /// Creates a non-consumable product through the publisher API, expecting 201.
    func createProduct(_ id: String, title: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let put = try await request(
            "PUT", "/v1/publisher/products/\(id)", headers: ["Content-Type: application/json"],
            body: Array(#"{"type": "nonConsumable", "title": "\#(title)"}"#.utf8))
        #expect(put.status == 201, "\(put.text)", sourceLocation: sourceLocation)
    }

    /// One request on a new connection: `method path` with the tus headers, `headers`, and `body`.
    func request(
        _ method: String, _ path: String, headers: [String] = [], body: [UInt8] = [], tus: Bool = true
    ) async throws -> RawHTTPClient.Response {
        let client = try RawHTTPClient(port: port)
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for line in (tus ? Self.tusHeaders : []) + headers { text += line + "\r\n" }
        if !body.isEmpty || method == "PATCH" || method == "POST" { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        try await client.send(text)
        if !body.isEmpty { try await client.send(bytes: body) }
        return try await client.readResponse(head: method == "HEAD")
    }

    /// Creates an upload of `length` bytes (or a deferred one); returns its path from `Location`.
    func create(length: Int64?, metadata: String? = nil) async throws -> String {
        var headers = [length.map { "Upload-Length: \($0)" } ?? "Upload-Defer-Length: 1"]
        if let metadata { headers.append("Upload-Metadata: \(metadata)") }
        let response = try await request("POST", UploadRoutes.path, headers: headers)
        #expect(response.status == 201, "\(response.status) \(response.text)")
        return try Self.path(ofLocation: try #require(response.value("Location")))
    }

    /// The path of a creation's `Location` (an absolute URL, `http://host:port/v1/publisher/uploads/ID`).
    static func path(ofLocation location: String) throws -> String {
        let url = try #require(URL(string: location), "\(location)")
        #expect(url.scheme == "http" && url.host != nil, "\(location)")
        return url.path
    }

    /// `PATCH` bytes at `offset`.
    func patch(_ path: String, offset: Int64, _ bytes: [UInt8], headers: [String] = []) async throws -> RawHTTPClient.Response {
        try await request(
            "PATCH", path,
            headers: ["Content-Type: application/offset+octet-stream", "Upload-Offset: \(offset)"] + headers, body: bytes)
    }

    /// The offset `HEAD` reports, or nil when the answer is not 200.
    func offset(_ path: String) async throws -> Int64? {
        let response = try await request("HEAD", path)
        guard response.status == 200 else { return nil }
        return response.value("Upload-Offset").flatMap { Int64($0) }
    }
}

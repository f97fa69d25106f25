@testable import DepotServerTestSupport
import DepotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Schemathesis (property-based testing from the OpenAPI document) against the real `depot serve`, on each
/// ledger engine: every operation of `docs/openapi.yaml` is called with generated valid and invalid input, and
/// every answer must be no 5xx, a documented status, a documented content type, and a body the document's
/// schema accepts.
///
/// The server is given an operator token (in its configuration), a publisher key (`depot keys create`) and a
/// grant for one of its bundles (`depot dev grant`, the bundle's digest pinned for the bundle operations), and
/// Schemathesis is told them by security scheme, so the authenticated routes are exercised past their doors.
/// Bounded by `--max-examples` per operation and a generous time limit. Without Schemathesis the test is
/// skipped with a message; in CI (`CI` set) that is a failure.
@Suite("Schemathesis against a live depot serve", .serialized)
struct SchemathesisTests {
    /// Test cases per operation and phase.
    static let maxExamples = 40
    /// The whole run's bound, generous for a slow, loaded machine (a quiet one needs about a minute).
    static let timeLimitSeconds = 1200
    /// The checks: no 5xx, and the answer's status, content type and body as documented.
    static let checks = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"

    /// tus bodies are `application/offset+octet-stream`: raw bytes, as Schemathesis sends octet streams.
    static let hooks = """
        import schemathesis
        schemathesis.serializer.alias("application/offset+octet-stream", "application/octet-stream")
        """

    @Test(arguments: LedgerEngine.tested)
    func everyAnswerIsDocumentedAndNoneIsAServerError(engine: LedgerEngine) async throws {
        guard let schemathesis = ExternalTool.require("schemathesis", install: "python3 -m pip install schemathesis") else {
            return
        }
        try await ServePlace.onEngine(engine) { binary, databaseURL in
            try await run(schemathesis, binary: binary, engine: engine, databaseURL: databaseURL)
        }
    }

    private func run(_ schemathesis: String, binary: String, engine: LedgerEngine, databaseURL: String?) async throws {
        let scratch = try ScratchDirectory("schemathesis-\(engine.rawValue)")
        defer { scratch.remove() }
        try SharedInstances.writeConfiguration(in: scratch)
        try SharedInstances.write(SharedInstances.smallPacks, in: scratch)
        let place = ServePlace(scratch: scratch, databaseURL: databaseURL)
        let command = DepotCommand(scratch: scratch, databaseURL: databaseURL)
        let key = try await command.makeKey()

        let server = try await DepotProcess.start(binary: binary, arguments: place.arguments, environment: place.environment)
        defer { server.killIfRunning() }
        let port = try #require(server.port)
        let products = try JSONAnswer(try await RawHTTPClient(port: port).request(RawHTTPClient.get("/v1/products")))
        let digest = try #require(products["products.0.contents.0.digest"]?.string)
        let grant = try await command.grant(digest)

        try scratch.write("hooks.py", Self.hooks)
        try scratch.write(
            "schemathesis.toml",
            """
            hooks = "\(scratch.path)/hooks.py"

            [auth.openapi.adminToken]
            bearer = "\(SharedInstances.adminToken)"
            [auth.openapi.publisherKey]
            bearer = "\(key)"
            [auth.openapi.grant]
            bearer = "\(grant)"
            [auth.openapi.grantQuery]
            api_key = "\(grant)"

            [[operations]]
            include-path = "/v1/bundles/{digest}"
            parameters = { digest = "\(digest)" }
            """)
        let log = scratch.path + "/schemathesis.log"
        let har = scratch.path + "/schemathesis.har"
        let seed = ProcessInfo.processInfo.environment["DEPOT_SCHEMATHESIS_SEED"] ?? "20261124"
        let arguments = [
            "--kill-after=30", String(Self.timeLimitSeconds), schemathesis, "--config-file", scratch.path + "/schemathesis.toml",
            "run", OpenAPIDocument.path, "--url", "http://127.0.0.1:\(port)", "--checks", Self.checks,
            "--max-examples", String(Self.maxExamples), "--seed", seed, "--workers", "1", "--generation-database", "none",
            "--report", "har", "--report-har-path", har, "--no-color",
        ]
        // Output to a file: the run's report can be large, and a test reads it only when something failed.
        let result = try await ExternalTool.run(
            "/bin/sh", ["-c", "exec timeout \"$@\" > \"\(log)\" 2>&1", "timeout"] + arguments, in: scratch.path)
        let report = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(result.status != 124, "Schemathesis did not finish within \(Self.timeLimitSeconds) s")
        #expect(result.status == 0, "\(engine): Schemathesis (seed \(seed)) found failures:\n\(String(report.suffix(12_000)))")

        // The run reached every operation, and past the doors of the authenticated ones.
        let answers = try Self.answers(har)
        #expect(answers.count > 1000, "only \(answers.count) requests were made:\n\(String(report.suffix(4000)))")
        for (method, path) in [
            ("GET", "/v1/admin/irregular"), ("GET", "/v1/admin/deliveries/unfinished"), ("GET", "/v1/bundles/\(digest)"),
            ("PUT", "/v1/publisher/products/"), ("OPTIONS", "/v1/publisher/uploads"),
        ] {
            let succeeded = answers.contains { $0.method == method && $0.path.hasPrefix(path) && (200..<300).contains($0.status) }
            #expect(succeeded, "no \(method) \(path)... was answered 2xx: the credentials did not open it")
        }

        // No answer was a 5xx, and the server neither logged a failure nor stopped.
        #expect(!answers.contains { $0.status >= 500 })
        #expect(server.isRunning, "depot serve stopped during the run; its log:\n\(server.logText.suffix(4000))")
        for line in server.logText.split(separator: "\n") where line.contains("request failed") {
            Issue.record("the server logged a failed request: \(line)")
        }
        server.kill(SIGTERM)
        let exit = await server.waitForExit(timeout: .seconds(60))
        #expect(exit?.status == 0, "depot serve did not stop cleanly after SIGTERM")
    }

    /// Method, path (without the query) and status of every exchange in a HAR file.
    static func answers(_ path: String) throws -> [(method: String, path: String, status: Int)] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let entries = try #require((root["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        return entries.compactMap { entry in
            guard let request = entry["request"] as? [String: Any], let response = entry["response"] as? [String: Any],
                let method = request["method"] as? String, let url = (request["url"] as? String).flatMap(URLComponents.init),
                let status = response["status"] as? Int
            else { return nil }
            return (method, url.percentEncodedPath, status)
        }
    }
}

@testable import DepotServerTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Operator requests carrying values no ledger row can hold (a negative offset in a cursor, U+0000 in a
/// cursor's text or in a transaction id) are answered 4xx on both engines. PostgreSQL refuses such values with
/// an error, which the server once answered 503 `ledger-unavailable`; found fuzzing the document against a
/// PostgreSQL-backed server.
@Suite("Values no ledger row can hold are answered 4xx")
struct StorableInputTests {
    /// base64url without padding, as the server writes cursors.
    static func cursor(_ json: String) -> String {
        Data(json.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static let cases: [(path: String, status: Int, code: String?)] = [
        ("/v1/admin/irregular?cursor=" + cursor("-5"), 400, "invalid-cursor"),
        ("/v1/admin/irregular?cursor=" + cursor("-9223372036854775808"), 400, "invalid-cursor"),
        ("/v1/admin/irregular?cursor=" + cursor("0"), 200, nil),
        (
            "/v1/admin/deliveries/unfinished?cursor="
                + cursor(#"{"transactionId":"\u0000","contentId":"a","version":"1"}"#), 400, "invalid-cursor"
        ),
        (
            "/v1/admin/deliveries/unfinished?cursor="
                + cursor(#"{"transactionId":"1","contentId":"a\u0000","version":"1"}"#), 400, "invalid-cursor"
        ),
        (
            "/v1/admin/deliveries/unfinished?cursor="
                + cursor(#"{"transactionId":"1","contentId":"a","version":"1"}"#), 200, nil
        ),
        ("/v1/admin/transactions/%00", 404, "unknown-transaction"),
        ("/v1/admin/transactions/a%00b?cursor=" + cursor("-1"), 404, "unknown-transaction"),
        ("/v1/admin/transactions/" + String(repeating: "7", count: 65), 404, "unknown-transaction"),
    ]

    @Test(arguments: LedgerEngine.tested)
    func operatorRequestsWithUnstorableValues(engine: LedgerEngine) async throws {
        try await ServePlace.onEngine(engine) { binary, databaseURL in
            let scratch = try ScratchDirectory("storable-input-\(engine.rawValue)")
            defer { scratch.remove() }
            try SharedInstances.writeConfiguration(in: scratch)
            try SharedInstances.write(SharedInstances.smallPacks, in: scratch)
            let place = ServePlace(scratch: scratch, databaseURL: databaseURL)
            let server = try await DepotProcess.start(binary: binary, arguments: place.arguments, environment: place.environment)
            defer { server.killIfRunning() }
            let port = try #require(server.port)
            for (path, status, code) in Self.cases {
                let answer = try await RawHTTPClient(port: port).request(
                    RawHTTPClient.get(path, [SharedInstances.adminAuthorization]))
                #expect(answer.status == status, "\(engine) \(path): \(String(decoding: answer.body, as: UTF8.self))")
                if let code { #expect(PublisherRequests.errorCode(answer) == code, "\(engine) \(path)") }
            }
            #expect(!server.logText.contains("ledger failure"), "\(server.logText.suffix(3000))")
            server.kill(SIGTERM)
            _ = await server.waitForExit(timeout: .seconds(60))
        }
    }
}

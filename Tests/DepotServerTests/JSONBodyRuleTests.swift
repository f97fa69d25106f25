@testable import DepotServerTestSupport
import DepotServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// A restore must name what it restores, and a JSON body must be UTF-8 on every route that reads one: neither a
/// body naming nothing nor one whose strings hold invalid UTF-8 is answered as if it were a request for nothing.
@Suite("JSON body rules")
struct JSONBodyRuleTests {
    /// `{"<key>": ["a<0xFF>b"]}`: JSON whose one string holds a byte that is never UTF-8.
    static func invalidUTF8(key: String) -> ByteBuffer {
        var buffer = ByteBuffer(string: "{\"\(key)\": [\"a")
        buffer.writeInteger(UInt8(0xFF))
        buffer.writeString("b\"]}")
        return buffer
    }

    @Test func aRestoreNamingNoPurchasesIsRefused() async throws {
        try await RoutedRequestTests.withRouter { _, client in
            let json: HTTPFields = [.contentType: "application/json"]
            for body in ["{}", #"{"unknown": [1]}"#, #"{"appAccountToken": "6f1b7a0e-6c4b-4a55-9a35-0d0b7d3f2a11"}"#] {
                let answer = try await client.execute(uri: "/v1/restore", method: .post, headers: json, body: ByteBuffer(string: body))
                #expect(answer.status == .badRequest, "\(body): \(String(buffer: answer.body))")
                #expect(try RoutedRequestTests.errorCode(answer) == "bad-request", "\(body)")
            }
            let invalid = try await client.execute(
                uri: "/v1/restore", method: .post, headers: json, body: Self.invalidUTF8(key: "signedTransactions"))
            #expect(invalid.status == .badRequest, "\(String(buffer: invalid.body))")
            #expect(try RoutedRequestTests.errorCode(invalid) == "bad-request")
            // Naming a list, even an empty one, is a restore of what it holds.
            for body in [#"{"signedTransactions": []}"#, #"{"googlePlayPurchases": []}"#] {
                let answer = try await client.execute(uri: "/v1/restore", method: .post, headers: json, body: ByteBuffer(string: body))
                #expect(answer.status == .ok, "\(body): \(String(buffer: answer.body))")
            }
        }
    }

    @Test func aBodyThatIsNotUTF8IsRefusedOnEveryJSONRoute() async throws {
        try await RoutedRequestTests.withRouter { application, client in
            let (key, _) = try await PublisherRequests.makeKey(application.ledger)
            // Each body is valid but for one byte, 0xC3 cut short, inside a string; the code says it was refused as
            // unreadable, not judged on what Foundation made of it.
            let routes: [(path: String, method: HTTPRequest.Method, before: String, after: String)] = [
                ("/v1/transactions", .post, #"{"signedTransaction": "a"#, #""}"#),
                ("/v1/transactions/1000/finish", .post, #"{"delivered": [], "finishToken": "a"#, #""}"#),
                ("/v1/notifications/appstore", .post, #"{"signedPayload": "a"#, #""}"#),
                ("/v1/publisher/products/com.example.fresh", .put, #"{"type": "consumable", "title": "a"#, #""}"#),
            ]
            for route in routes {
                var body = ByteBuffer(string: route.before)
                body.writeInteger(UInt8(0xC3))
                body.writeString(route.after)
                let answer = try await client.execute(
                    uri: route.path, method: route.method,
                    headers: [.contentType: "application/json", .authorization: "Bearer \(key)"], body: body)
                #expect(answer.status == .badRequest, "\(route.path): \(String(buffer: answer.body))")
                #expect(try RoutedRequestTests.errorCode(answer) == "bad-request", "\(route.path)")
            }
        }
    }
}

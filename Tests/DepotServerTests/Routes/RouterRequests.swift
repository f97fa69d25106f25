import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Requests and checks the router-tier tests share: a JSON POST, and the fields every answer of the JSON API
/// carries.
enum RouterRequests {
    /// Posts `json` to `uri`, with `headers` added.
    static func post(
        _ client: any TestClientProtocol, _ uri: String, _ json: String, headers: HTTPFields = [:]
    ) async throws -> TestResponse {
        var fields = headers
        fields[.contentType] = "application/json"
        return try await client.execute(uri: uri, method: .post, headers: fields, body: ByteBuffer(string: json))
    }

    /// Checks that `response` is a JSON answer of `status` that no cache keeps, with a request id; an error answer's
    /// body is Depot's error body, with `code` when given.
    static func expectJSON(
        _ response: TestResponse, _ status: HTTPResponse.Status, code: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(response.status == status, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
        #expect(response.headers[.contentType] == "application/json", sourceLocation: sourceLocation)
        #expect(response.headers[.cacheControl] == "no-store", sourceLocation: sourceLocation)
        #expect(response.headers[HTTPField.Name("X-Request-Id")!] != nil, sourceLocation: sourceLocation)
        guard status.code >= 400 else { return }
        let error = try #require(
            try RoutedRequestTests.object(response)["error"] as? [String: Any], sourceLocation: sourceLocation)
        #expect(error["message"] is String, sourceLocation: sourceLocation)
        if let code {
            #expect(error["code"] as? String == code, sourceLocation: sourceLocation)
        } else {
            #expect(error["code"] is String, sourceLocation: sourceLocation)
        }
    }
}

@testable import DepotServerTestSupport
import DepotCore
import DepotServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DepotServices

/// Versions named `.`, `..` or anything starting with `.` are refused on every path a version takes, as such
/// product ids are: a URL path resolves `.` and `..` away, so such a version could never be published, halted or
/// deleted once recorded.
@Suite("Version name rule")
struct VersionNameRuleTests {
    static let dotted = [".", "..", ".hidden", "..1"]

    @Test(arguments: [
        ("1.0", true), ("2026-03-01", true), ("v1..2", true), ("a", true), (String(repeating: "9", count: 64), true),
        (".", false), ("..", false), (".1", false), ("", false), ("a b", false), ("a/b", false),
        (String(repeating: "9", count: 65), false), ("é", false),
    ])
    func theRule(version: String, accepted: Bool) {
        #expect(VersionName.isAcceptable(version) == accepted, "\(version)")
    }

    @Test(arguments: dotted)
    func aTusUploadsVersionMetadataFollowsTheRule(version: String) throws {
        let header = "filename cGFjay56aXA=,version " + Data(version.utf8).base64EncodedString()
        #expect(throws: UploadError.self) {
            try UploadRules.creation(uploadLength: "42", deferLength: nil, metadata: header, maxSize: 1000)
        }
        let good = "version " + Data("1.0".utf8).base64EncodedString()
        #expect(try UploadRules.creation(uploadLength: "42", deferLength: nil, metadata: good, maxSize: 1000).length == 42)
    }

    @Test func aVersionStartingWithADotIsRefusedByThePublisherRoutes() async throws {
        try await RoutedRequestTests.withRouter { application, client in
            let (key, _) = try await PublisherRequests.makeKey(application.ledger)
            let headers: HTTPFields = [.authorization: "Bearer \(key)", .contentType: "application/json"]
            let upload = String(repeating: "a", count: 32)
            let digest = String(repeating: "0", count: 64)
            for version in Self.dotted {
                let created = try await client.execute(
                    uri: "/v1/publisher/products/com.example.level1/versions", method: .post, headers: headers,
                    body: ByteBuffer(string: #"{"upload": "\#(upload)", "version": "\#(version)", "sha256": "\#(digest)"}"#))
                #expect(created.status == .badRequest, "\(version): \(String(buffer: created.body))")
                #expect(try RoutedRequestTests.errorCode(created) == "invalid-version", "\(version)")
                let encoded = version.replacingOccurrences(of: ".", with: "%2E")
                for action in ["publish", "halt"] {
                    let answer = try await client.execute(
                        uri: "/v1/publisher/products/com.example.level1/versions/\(encoded)/\(action)", method: .post,
                        headers: headers, body: ByteBuffer(string: "{}"))
                    #expect(answer.status == .badRequest, "\(version) \(action): \(String(buffer: answer.body))")
                    #expect(try RoutedRequestTests.errorCode(answer) == "invalid-version", "\(version) \(action)")
                }
            }
        }
    }
}

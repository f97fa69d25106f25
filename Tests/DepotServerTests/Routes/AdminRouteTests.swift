@testable import DepotServer
@testable import DepotServerTestSupport
import DepotCore
import DepotSettings
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `AdminRoutes` and `AdminAuthMiddleware` through the router without a socket: the operator token, and each
/// list's and the report's documented answers, pages and refused parameters.
@Suite("Admin routes without a socket")
struct AdminRouteTests {
    static let admin: HTTPFields = [.authorization: "Bearer \(LiveServer.adminToken)"]

    /// GETs `uri` as the operator.
    static func get(_ client: any TestClientProtocol, _ uri: String) async throws -> TestResponse {
        try await client.execute(uri: uri, method: .get, headers: admin)
    }

    @Test(arguments: [
        "/v1/admin/deliveries/unfinished", "/v1/admin/apple-outbox", "/v1/admin/irregular", "/v1/admin/transactions/2000000000000001",
    ])
    func everyAdminRouteNeedsTheOperatorsToken(path: String) async throws {
        try await RoutedRequestTests.withRouter { _, client in
            let bare = try await client.execute(uri: path, method: .get)
            try RouterRequests.expectJSON(bare, .unauthorized, code: "admin-token-required")
            let wrong = try await client.execute(uri: path, method: .get, headers: [.authorization: "Bearer not-the-admin"])
            try RouterRequests.expectJSON(wrong, .forbidden, code: "admin-token-refused")
            let scheme = try await client.execute(uri: path, method: .get, headers: [.authorization: "Basic dGVzdC1hZG1pbg=="])
            #expect([401, 403].contains(scheme.status.code), "\(String(buffer: scheme.body))")
        }
    }

    @Test func unfinishedDeliveriesComeInPagesAndBadParametersAre400() async throws {
        try await RoutedRequestTests.withRouter { application, client in
            var ids: [String] = []
            for _ in 0..<2 {
                ids.append(try await TransactionRouteTests.redeem(application, client).id)
            }
            // Deliveries idle for an hour (the default): none yet.
            let idle = try await Self.get(client, "/v1/admin/deliveries/unfinished")
            try RouterRequests.expectJSON(idle, .ok)
            #expect((try RoutedRequestTests.object(idle)["deliveries"] as? [Any])?.isEmpty == true)

            let first = try await Self.get(client, "/v1/admin/deliveries/unfinished?olderThan=0&limit=1")
            try RouterRequests.expectJSON(first, .ok)
            let firstPage = try RoutedRequestTests.object(first)
            let firstDeliveries = try #require(firstPage["deliveries"] as? [[String: Any]])
            #expect(firstDeliveries.count == 1)
            #expect(firstDeliveries.first?["contentId"] as? String == "com.example.level1")
            let cursor = try #require(firstPage["nextCursor"] as? String)
            let second = try await Self.get(client, "/v1/admin/deliveries/unfinished?olderThan=0&limit=1&cursor=\(cursor)")
            try RouterRequests.expectJSON(second, .ok)
            let secondPage = try RoutedRequestTests.object(second)
            let secondDeliveries = try #require(secondPage["deliveries"] as? [[String: Any]])
            #expect(secondPage["nextCursor"] == nil || secondPage["nextCursor"] is NSNull)
            let seen = (firstDeliveries + secondDeliveries).compactMap { $0["transactionId"] as? String }
            #expect(seen.sorted() == ids.sorted())

            for (query, code) in [
                ("olderThan=-1", "bad-request"), ("limit=0", "bad-request"), ("limit=1001", "bad-request"),
                ("limit=ten", "bad-request"), ("cursor=not-a-cursor", "invalid-cursor"),
                ("cursor=" + String(repeating: "A", count: 5000), "invalid-cursor"),
            ] {
                let refused = try await Self.get(client, "/v1/admin/deliveries/unfinished?\(query)")
                try RouterRequests.expectJSON(refused, .badRequest, code: code)
            }
        }
    }

    @Test func aTransactionsReportSaysWhatIsKnownOfIt() async throws {
        try await RoutedRequestTests.withRouter { application, client in
            let (id, _, digest) = try await TransactionRouteTests.redeem(application, client)
            let report = try await Self.get(client, "/v1/admin/transactions/\(id)")
            try RouterRequests.expectJSON(report, .ok)
            let body = try RoutedRequestTests.object(report)
            #expect((body["transaction"] as? [String: Any])?["id"] as? String == id)
            #expect(body["revoked"] as? Bool == false)
            let deliveries = try #require(body["deliveries"] as? [[String: Any]])
            #expect(deliveries.map { $0["digest"] as? String } == [digest])
            #expect(deliveries.first?["grantsIssued"] as? Int == 1)
            #expect((body["audit"] as? [Any])?.isEmpty == false)

            let limited = try await Self.get(client, "/v1/admin/transactions/\(id)?limit=1")
            try RouterRequests.expectJSON(limited, .ok)
            #expect((try RoutedRequestTests.object(limited)["audit"] as? [Any])?.count == 1)

            for unknown in ["2999999999999999", "not%20an%20id", "%00"] {
                let answer = try await Self.get(client, "/v1/admin/transactions/\(unknown)")
                try RouterRequests.expectJSON(answer, .notFound, code: "unknown-transaction")
            }
            let undecodable = try await Self.get(client, "/v1/admin/transactions/%FF")
            try RouterRequests.expectJSON(undecodable, .badRequest, code: "bad-request")
        }
    }

    @Test func theIrregularListAndTheOutboxAnswerEmptyPages() async throws {
        try await RoutedRequestTests.withRouter { application, client in
            let irregular = try await Self.get(client, "/v1/admin/irregular")
            try RouterRequests.expectJSON(irregular, .ok)
            let list = try RoutedRequestTests.object(irregular)
            #expect((list["windowSeconds"] as? NSNumber)?.int64Value == application.configuration.irregularActivity.windowSeconds)
            #expect((list["transactions"] as? [Any])?.isEmpty == true)
            // An offset cursor that was never handed out: a negative one.
            let refused = try await Self.get(client, "/v1/admin/irregular?cursor=\(PageRequest<Int>.cursor(after: -1))")
            try RouterRequests.expectJSON(refused, .badRequest, code: "invalid-cursor")

            let outbox = try await Self.get(client, "/v1/admin/apple-outbox")
            try RouterRequests.expectJSON(outbox, .ok)
            let jobs = try RoutedRequestTests.object(outbox)
            #expect(jobs["enabled"] as? Bool == false, "no App Store Server API is configured")
            #expect((jobs["jobs"] as? [Any])?.isEmpty == true)
            let badLimit = try await Self.get(client, "/v1/admin/apple-outbox?limit=-3")
            try RouterRequests.expectJSON(badLimit, .badRequest, code: "bad-request")
        }
    }
}

@testable import DepotServer
@testable import DepotServerTestSupport
import DepotTelemetry
import DepotTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `MetricsRoute` through the router without a socket: the token, and a scrape in Prometheus's text format with the
/// sampled families and the requests the router counted.
@Suite("Metrics route without a socket")
struct MetricsRouteRouterTests {
    @Test func theTokenIsRequiredAndChecked() async throws {
        try await RoutedRequestTests.withRouter { _, client in
            let bare = try await client.execute(uri: "/metrics", method: .get)
            try RouterRequests.expectJSON(bare, .unauthorized, code: "metrics-token-required")
            let wrong = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer not-it"])
            try RouterRequests.expectJSON(wrong, .forbidden, code: "metrics-token-refused")
        }
    }

    @Test func aScrapeIsStrictPrometheusTextWithTheSampledFamilies() async throws {
        try await RoutedRequestTests.withRouter { _, client in
            let missing = try await client.execute(uri: "/v1/products/com.example.nothing/update?from=1", method: .get)
            #expect(missing.status == .notFound)
            let answer = try await client.execute(
                uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(LiveServer.adminToken)"])
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentType] == MetricsRoute.contentType)
            #expect(answer.headers[.cacheControl] == "no-store")
            let scrape = try PrometheusText(String(buffer: answer.body))
            #expect(scrape.value(DepotMetrics.Name.appleOutboxJobs, ["state": "pending"]) == 0)
            #expect(scrape.value(DepotMetrics.Name.appleOutboxJobs, ["state": "failed"]) == 0)
            #expect(scrape.value(DepotMetrics.Name.googlePlayDeadlineNear) == 0)
            // Ready exactly when the ledger answered the probe in time (a loaded machine may be slower than its bound).
            let ready = try #require(scrape.value(DepotMetrics.Name.ready))
            #expect(ready == scrape.value(DepotMetrics.Name.ledgerAvailable))
            #expect((scrape.value(DepotMetrics.Name.residentMemory) ?? 0) > 0)
            // The unknown product was counted with the status it was answered with.
            #expect(!scrape.samples(DepotMetrics.Name.requests, matching: ["method": "GET", "status": "404"]).isEmpty)
        }
    }
}

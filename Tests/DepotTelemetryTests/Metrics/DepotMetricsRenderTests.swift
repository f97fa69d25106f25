import DepotTelemetry
import DepotTestSupport
import Testing

/// `DepotMetrics` rendered as Prometheus text and parsed strictly: the families every scrape shows, what each
/// recording adds under which labels, and one registry per instance.
@Suite("Metrics rendered as Prometheus text")
struct DepotMetricsRenderTests {
    typealias Name = DepotMetrics.Name

    /// The metrics' exposition, parsed.
    static func scrape(_ metrics: DepotMetrics) throws -> PrometheusText {
        try PrometheusText(String(decoding: metrics.render(), as: UTF8.self))
    }

    @Test func aFreshInstanceShowsItsStandingFamiliesAtZero() throws {
        let scrape = try Self.scrape(DepotMetrics())
        #expect(scrape.value(Name.downloadsInFlight) == 0)
        #expect(scrape.value(Name.purgeQueueDepth) == 0)
        #expect(scrape.value(Name.servedEventsDropped) == 0)
        #expect(scrape.value(Name.servedBacklog) == 0)
        #expect(scrape.value(Name.servedRangesUnrecorded, ["reason": "share"]) == 0)
        #expect(scrape.value(Name.servedRangesUnrecorded, ["reason": "bound"]) == 0)
        #expect(scrape.types[Name.servedEventsDropped] == "counter")
        #expect(scrape.types[Name.servedBacklog] == "gauge")
        // Nothing was requested: no request family yet.
        #expect(scrape.samples(Name.requests).isEmpty)
    }

    @Test func aRequestIsCountedByRouteMethodAndStatusAndTimedByRouteAndMethod() throws {
        let metrics = DepotMetrics()
        metrics.request(route: "/v1/products", method: "GET", status: 200, duration: .milliseconds(3))
        metrics.request(route: "/v1/products", method: "GET", status: 200, duration: .milliseconds(5))
        metrics.request(route: "/v1/products", method: "GET", status: 304, duration: .milliseconds(1))
        let scrape = try Self.scrape(metrics)
        #expect(scrape.value(Name.requests, ["route": "/v1/products", "method": "GET", "status": "200"]) == 2)
        #expect(scrape.value(Name.requests, ["route": "/v1/products", "method": "GET", "status": "304"]) == 1)
        #expect(scrape.types[Name.requests] == "counter")
        #expect(scrape.types[Name.requestDuration] == "histogram")
        let labels = ["route": "/v1/products", "method": "GET"]
        #expect(scrape.value(Name.requestDuration + "_count", labels) == 3)
        let sum = try #require(scrape.value(Name.requestDuration + "_sum", labels))
        #expect(abs(sum - 0.009) < 1e-9)
        #expect(scrape.value(Name.requestDuration + "_bucket", labels.merging(["le": "+Inf"]) { a, _ in a }) == 3)
    }

    @Test func outcomesAndGrantDownloadsAreCountedUnderTheirLabels() throws {
        let metrics = DepotMetrics()
        metrics.redeem(outcome: "ok")
        metrics.redeem(outcome: "ok")
        metrics.redeem(outcome: "signature-invalid")
        metrics.finish(outcome: "ok")
        metrics.verificationFailed(code: "chain-untrusted")
        metrics.versionOffered(contentId: "level1", version: "1.0")
        metrics.versionDelivered(contentId: "level1", version: "1.0")
        metrics.grantDownload(bytes: 1000)
        metrics.grantDownload(bytes: 24)
        metrics.servedEventDropped()
        metrics.servedRangesOverShare(3)
        metrics.servedRangesOverShare(0)
        metrics.servedRangesBeyondBound(2)
        metrics.servedBacklog(7)
        let scrape = try Self.scrape(metrics)
        #expect(scrape.value(Name.redeems, ["outcome": "ok"]) == 2)
        #expect(scrape.value(Name.redeems, ["outcome": "signature-invalid"]) == 1)
        #expect(scrape.value(Name.finishes, ["outcome": "ok"]) == 1)
        #expect(scrape.value(Name.verificationFailures, ["code": "chain-untrusted"]) == 1)
        #expect(scrape.value(Name.versionOffers, ["content": "level1", "version": "1.0"]) == 1)
        #expect(scrape.value(Name.versionDeliveries, ["content": "level1", "version": "1.0"]) == 1)
        #expect(scrape.value(Name.bundleResponses, ["via": "grant"]) == 2)
        #expect(scrape.value(Name.bundleBytes, ["via": "grant"]) == 1024)
        #expect(scrape.value(Name.servedEventsDropped) == 1)
        #expect(scrape.value(Name.servedRangesUnrecorded, ["reason": "share"]) == 3)
        #expect(scrape.value(Name.servedRangesUnrecorded, ["reason": "bound"]) == 2)
        #expect(scrape.value(Name.servedBacklog) == 7)
    }

    @Test func theHealthGaugesTakeTheirLastValue() throws {
        let metrics = DepotMetrics()
        metrics.ready(true)
        metrics.ledgerAvailable(false)
        metrics.disk(path: "/data", freeBytes: 5_000, belowFloor: false)
        // An unknown free space keeps the last value and still says where the floor stands.
        metrics.disk(path: "/data", freeBytes: nil, belowFloor: true)
        metrics.outboxOldestPending(seconds: -4)
        var scrape = try Self.scrape(metrics)
        #expect(scrape.value(Name.ready) == 1)
        #expect(scrape.value(Name.ledgerAvailable) == 0)
        #expect(scrape.value(Name.diskFreeBytes, ["path": "/data"]) == 5_000)
        #expect(scrape.value(Name.diskBelowFloor) == 1)
        #expect(scrape.value(Name.outboxOldestPending) == 0, "an age is never negative")
        metrics.ready(false)
        metrics.outboxOldestPending(seconds: 90)
        scrape = try Self.scrape(metrics)
        #expect(scrape.value(Name.ready) == 0)
        #expect(scrape.value(Name.outboxOldestPending) == 90)
    }

    @Test func mirroredCountersOnlyGrow() throws {
        let metrics = DepotMetrics()
        metrics.mirrors.advance("depot_test_mirrored_total", dimensions: [("kind", "a")], to: 0, factory: metrics.factory)
        #expect(try Self.scrape(metrics).value("depot_test_mirrored_total", ["kind": "a"]) == 0)
        metrics.mirrors.advance("depot_test_mirrored_total", dimensions: [("kind", "a")], to: 5, factory: metrics.factory)
        metrics.mirrors.advance("depot_test_mirrored_total", dimensions: [("kind", "a")], to: 3, factory: metrics.factory)
        #expect(try Self.scrape(metrics).value("depot_test_mirrored_total", ["kind": "a"]) == 5)
        metrics.mirrors.advance("depot_test_mirrored_total", dimensions: [("kind", "a")], to: 8, factory: metrics.factory)
        #expect(try Self.scrape(metrics).value("depot_test_mirrored_total", ["kind": "a"]) == 8)
    }

    @Test func eachInstanceCountsInItsOwnRegistry() throws {
        let one = DepotMetrics()
        let other = DepotMetrics()
        one.redeem(outcome: "ok")
        #expect(try Self.scrape(one).value(Name.redeems, ["outcome": "ok"]) == 1)
        #expect(try Self.scrape(other).value(Name.redeems, ["outcome": "ok"]) == nil)
    }
}

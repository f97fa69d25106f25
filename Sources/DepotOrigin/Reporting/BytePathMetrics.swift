import Metrics

/// Where the byte path counts its answers, filled by the server from its metrics: the backend, the name of the
/// request counter family, and the gauge of downloads being written.
///
/// A class: every answer reads it, and copying a reference costs one count where a struct holding an existential
/// backend costs a copy of each of its parts.
package final class BytePathMetrics: Sendable {
    /// The swift-metrics backend the request counters are made in.
    package let factory: any MetricsFactory
    /// The name of the request counters (`depot_http_requests_total`), labelled by route, method and status.
    package let requestsLabel: String
    /// Bundle downloads being written now, counted from an answer to its write's end.
    package let downloadsInFlight: Meter

    /// Metrics made in `factory`.
    package init(factory: any MetricsFactory, requestsLabel: String, downloadsInFlight: Meter) {
        self.factory = factory
        self.requestsLabel = requestsLabel
        self.downloadsInFlight = downloadsInFlight
    }
}

import DepotOrigin

extension DepotMetrics {
    /// Where the byte path counts its answers: this registry's request counters and downloads in flight.
    package var bytePath: BytePathMetrics {
        BytePathMetrics(factory: factory, requestsLabel: Name.requests, downloadsInFlight: downloadsInFlight)
    }
}

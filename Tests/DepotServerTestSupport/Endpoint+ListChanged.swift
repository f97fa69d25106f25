import DepotTestSupport
import Testing

extension Endpoint {
    /// Waits until `client`'s `/v1/products` answers with an ETag other than `etag`; returns the answer.
    func listChanged(from etag: String?) async throws -> RawHTTPClient.Response {
        var latest: RawHTTPClient.Response?
        try await eventually("the other instance's list changing") {
            let response = try await request(RawHTTPClient.get("/v1/products"))
            latest = response
            return response.status == 200 && response.value("ETag") != etag
        }
        return try #require(latest)
    }
}

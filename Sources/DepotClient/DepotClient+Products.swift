import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A product list as last read, with whether the server said it had not changed since the call before.
public struct ProductListAnswer<List: Sendable & Equatable>: Sendable, Equatable {
    /// The list.
    public var list: List
    /// True when the server answered 304 to the kept validators, so `list` is the copy read before.
    public var notModified: Bool
    /// The list's `ETag`, kept for the next call.
    public var entityTag: String?
    /// The list's `Last-Modified`, kept for the next call.
    public var lastModified: String?
}

extension DepotClient {
    /// `GET /v1/products`: the rich list. Sends `If-None-Match` and `If-Modified-Since` with the validators
    /// of the last answer, and answers a 304 with the list read then.
    public func products() async throws(DepotClientError) -> ProductListAnswer<[Product]> {
        try await conditionalList("/v1/products") { data throws(DepotClientError) in
            try Self.decode(ProductList.self, from: data, doing: "GET /v1/products").products
        }
    }

    /// `GET /products_v1.json`: the product identifiers, the shape StoreKit's guides use for a
    /// server-hosted list (pass them to `Product.products(for:)`). Conditional like `products()`.
    public func productIdentifiers() async throws(DepotClientError) -> ProductListAnswer<[String]> {
        try await conditionalList("/products_v1.json") { data throws(DepotClientError) in
            try Self.decode([String].self, from: data, doing: "GET /products_v1.json")
        }
    }

    private func conditionalList<List: Sendable & Equatable>(
        _ path: String, decode: (Data) throws(DepotClientError) -> List
    ) async throws(DepotClientError) -> ProductListAnswer<List> {
        var request = URLRequest(url: try address(path))
        request.cachePolicy = .reloadIgnoringLocalCacheData
        let kept = await lists.entry(path)
        // RFC 9110 §13.1.2-3: the server judges If-None-Match first; If-Modified-Since is for servers without ETags.
        if let kept {
            if let tag = kept.entityTag { request.setValue(tag, forHTTPHeaderField: "If-None-Match") }
            if let date = kept.lastModified { request.setValue(date, forHTTPHeaderField: "If-Modified-Since") }
        }
        let (data, response) = try await exchange(request)
        switch response.statusCode {
        case 304:
            guard let kept else {
                throw DepotClientError(.badResponse, "the server answered 304 to GET \(path) without a condition")
            }
            let list = try decode(kept.body)
            return ProductListAnswer(list: list, notModified: true, entityTag: kept.entityTag, lastModified: kept.lastModified)
        case 200:
            let list = try decode(data)
            let tag = response.value(forHTTPHeaderField: "ETag")
            let date = response.value(forHTTPHeaderField: "Last-Modified")
            await lists.keep(path, ListCache.Entry(body: data, entityTag: tag, lastModified: date))
            return ProductListAnswer(list: list, notModified: false, entityTag: tag, lastModified: date)
        default:
            throw Self.failure(status: response.statusCode, body: data, doing: "GET \(path)")
        }
    }
}

/// The product lists last read and their validators, per path.
actor ListCache {
    /// One list as last read.
    struct Entry: Sendable {
        var body: Data
        var entityTag: String?
        var lastModified: String?
    }

    private var entries: [String: Entry] = [:]

    /// The entry kept for `path`.
    func entry(_ path: String) -> Entry? { entries[path] }

    /// Keeps `entry` for `path`.
    func keep(_ path: String, _ entry: Entry) { entries[path] = entry }
}

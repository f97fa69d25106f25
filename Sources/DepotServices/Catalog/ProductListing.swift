import Crypto
import DepotAPI
import DepotCore
import Foundation

/// The two product lists as they read at one moment, with their validators.
///
/// `GET /products_v1.json` is a plain JSON array of identifiers; `GET /v1/products` is the contract's rich
/// form. Both carry a strong ETag (SHA-256 of the body) and Last-Modified (the latest publication that has
/// come, never one in the future). Versions scheduled for later are not shown until their time.
package struct ProductListing: Sendable {
    /// One rendered list.
    package struct Document: Sendable {
        /// The JSON body.
        package var body: [UInt8]
        /// Opaque tag content (no quotes): hex SHA-256 of the body.
        package var entityTag: String
        /// Seconds since 1970.
        package var lastModified: Int64
    }

    /// `/products_v1.json`.
    package var identifiers: Document
    /// `/v1/products`.
    package var products: Document

    /// Renders both lists for a catalog as it reads at `now` (seconds since 1970).
    package init(catalog: Catalog, at now: Int64) throws {
        let lastModified = catalog.lastPublishedAt(at: now) ?? 0
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        identifiers = Self.document(try encoder.encode(catalog.products.map(\.id)), lastModified: lastModified)
        let rich = ProductList(
            products: catalog.products.map { product in
                DepotAPI.Product(
                    id: product.id, type: product.type.rawValue, title: product.title,
                    contents: catalog.currentContents(of: product.id, at: now).map { version in
                        DepotAPI.Product.Content(
                            id: version.contentId, version: version.version, size: version.size,
                            digest: version.digest.hex, publishedAt: UTCTimestamp.format(version.publishedAt))
                    })
            })
        products = Self.document(try encoder.encode(rich), lastModified: lastModified)
    }

    private static func document(_ data: Data, lastModified: Int64) -> Document {
        let body = Array(data)
        let tag = Hex.lowercase(SHA256.hash(data: body))
        return Document(body: body, entityTag: tag, lastModified: lastModified)
    }
}

@testable import DepotServer
@testable import DepotServerTestSupport
import DepotCore
import DepotSettings
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `ProductRoutes` through the router without a socket: both lists on GET and HEAD, with their validators, cache
/// and purge-tag fields, and the conditional answers (304, 412); ranges are not offered on lists.
@Suite("Product list routes without a socket")
struct ProductRouteTests {
    static let surrogateKey = HTTPField.Name("Surrogate-Key")!

    @Test(arguments: ["/products_v1.json", "/v1/products"])
    func aListIsAnsweredWithItsValidatorsAndPurgeTag(path: String) async throws {
        try await RoutedRequestTests.withRouter { application, client in
            let list = try await client.execute(uri: path, method: .get)
            #expect(list.status == .ok)
            #expect(list.headers[.contentType] == "application/json")
            #expect(list.headers[.cacheControl] == application.configuration.http.productListCacheControl)
            #expect(list.headers[Self.surrogateKey] == "product-lists", "the default edge settings tag the lists")
            #expect(list.headers[.acceptRanges] == nil)
            #expect(list.headers[.contentLength] == String(list.body.readableBytes))
            let etag = try #require(list.headers[.eTag])
            let modified = try #require(list.headers[.lastModified])
            let body = try JSONSerialization.jsonObject(with: Data(list.body.readableBytesView))
            if path == "/products_v1.json" {
                // The product identifiers alone, as an array.
                let identifiers = try #require(body as? [String])
                #expect(Set(identifiers).isSuperset(of: ["com.example.level1", "com.example.coins"]))
            } else {
                #expect(((body as? [String: Any])?["products"] as? [[String: Any]])?.isEmpty == false)
            }

            let head = try await client.execute(uri: path, method: .head)
            #expect(head.status == .ok)
            #expect(head.body.readableBytes == 0)
            #expect(head.headers[.eTag] == etag)
            #expect(head.headers[.contentLength] == list.headers[.contentLength])

            // A range is ignored: the whole list, never 206.
            let ranged = try await client.execute(uri: path, method: .get, headers: [.range: "bytes=0-3"])
            #expect(ranged.status == .ok)
            #expect(ranged.body == list.body)

            for conditions in [[HTTPField.Name.ifNoneMatch: etag], [.ifNoneMatch: "W/\(etag)"], [.ifModifiedSince: modified]] {
                let revalidated = try await client.execute(
                    uri: path, method: .get, headers: HTTPFields(conditions.map { HTTPField(name: $0.key, value: $0.value) }))
                #expect(revalidated.status == .notModified, "\(conditions)")
                #expect(revalidated.body.readableBytes == 0)
                #expect(revalidated.headers[.eTag] == etag)
                #expect(revalidated.headers[Self.surrogateKey] == "product-lists")
            }
            let stale = try await client.execute(uri: path, method: .get, headers: [.ifNoneMatch: "\"not-the-list\""])
            #expect(stale.status == .ok)

            let failed = try await client.execute(uri: path, method: .get, headers: [.ifMatch: "\"not-the-list\""])
            #expect(failed.status == .preconditionFailed)
            #expect(try RoutedRequestTests.errorCode(failed) == "precondition-failed")
            #expect(failed.headers[Self.surrogateKey] == nil, "an error is not tagged as the list")
        }
    }

    @Test func otherMethodsOnAListAreRefused() async throws {
        try await RoutedRequestTests.withRouter { _, client in
            let posted = try await client.execute(uri: "/v1/products", method: .post, body: ByteBuffer(string: "{}"))
            #expect([404, 405].contains(posted.status.code), "\(String(buffer: posted.body))")
            #expect(try RoutedRequestTests.errorCode(posted) != nil)
        }
    }
}

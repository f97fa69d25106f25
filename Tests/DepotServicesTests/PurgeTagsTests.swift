import DepotCore
import DepotTestSupport
import Testing

@testable import DepotServices

/// `PurgeTags`: the cache tags and paths each change makes stale at the edge.
@Suite("Purge tags")
struct PurgeTagsTests {
    @Test func eachChangeNamesTheTagsItMakesStale() {
        let version = ContentVersion(
            productId: "com.example.level1", contentId: "com.example.level1", version: "1.1 beta", publishedAt: 0,
            digest: .repeating("a"), size: 1, unpackedSize: 1)
        let published = PurgeTags.activated(version, rollback: false)
        #expect(published.tags == ["product-lists", "version:com.example.level1@1.1%20beta"])
        #expect(published.tags[1] == PurgeTags.tags(for: version)[2], "the tag the origin puts on the bundle")
        #expect(published.paths == ["/products_v1.json", "/v1/products", "/v1/bundles/" + version.digest.hex])
        #expect(PurgeTags.activated(version, rollback: true).reason == "rolled-back version:com.example.level1@1.1%20beta")
        #expect(PurgeTags.deleted(contentId: "com.example.level1", version: "1.1 beta").tags == ["version:com.example.level1@1.1%20beta"])

        let tagA = PurgeTags.transaction("2000000123")
        #expect(tagA.hasPrefix("transaction:") && tagA.count == "transaction:".count + 32)
        #expect(tagA.dropFirst("transaction:".count).allSatisfy { "0123456789abcdef".contains($0) })
        #expect(tagA == PurgeTags.transaction("2000000123"))
        #expect(tagA != PurgeTags.transaction("2000000124"))
        let revoked = PurgeTags.revoked(["2000000124", "2000000123", "2000000124"])
        #expect(revoked.tags == [tagA, PurgeTags.transaction("2000000124")].sorted())
        #expect(revoked.paths.isEmpty)
        #expect(PurgeTags.revoked([]).tags.isEmpty, "nothing revoked, nothing purged")
    }
}

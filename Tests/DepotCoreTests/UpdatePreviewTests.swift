import DepotCore
import Testing

/// What a buyer on one version would download: nothing when current, the delta when one exists from that version to
/// the current one, else the whole bundle; a product with several contents needs the content named.
@Suite struct UpdatePreviewTests {
    static func digest(_ byte: UInt8) -> BundleDigest { BundleDigest(bytes: Array(repeating: byte, count: 32))! }

    static let catalog = Catalog(
        products: [
            Product(id: "com.example.level1", type: .nonConsumable, title: "Level 1"),
            Product(id: "com.example.magazine", type: .autoRenewable, title: "Magazine", periodSeconds: 2_592_000),
        ],
        versions: [
            ContentVersion(
                productId: "com.example.level1", contentId: "com.example.level1", version: "3.0", publishedAt: 300,
                digest: digest(3), size: 9_000, unpackedSize: 20_000),
            ContentVersion(
                productId: "com.example.magazine", contentId: "issue-1", version: "1.0", publishedAt: 100, digest: digest(4),
                size: 500, unpackedSize: 900),
            ContentVersion(
                productId: "com.example.magazine", contentId: "issue-2", version: "1.0", publishedAt: 200, digest: digest(5),
                size: 600, unpackedSize: 1_000),
        ],
        deltas: [
            DeltaBundle(
                productId: "com.example.level1", contentId: "com.example.level1", baseVersion: "2.0", targetVersion: "3.0",
                digest: digest(6), size: 1_200)
        ])

    @Test func nothingADeltaOrTheWholeBundle() throws {
        let current = try #require(Self.catalog.updatePreview(productId: "com.example.level1", contentId: nil, from: "3.0", at: 400))
        #expect(current.kind == .none && current.bytes == 0 && current.current.version == "3.0")
        let delta = try #require(Self.catalog.updatePreview(productId: "com.example.level1", contentId: nil, from: "2.0", at: 400))
        #expect(delta.kind == .delta && delta.bytes == 1_200)
        let full = try #require(Self.catalog.updatePreview(productId: "com.example.level1", contentId: nil, from: "1.0", at: 400))
        #expect(full.kind == .full && full.bytes == 9_000)
    }

    @Test func severalContentsNeedOneNamedAndUnknownOnesAreNil() {
        #expect(Self.catalog.updatePreview(productId: "com.example.magazine", contentId: nil, from: "0.9", at: 400) == nil)
        #expect(Self.catalog.updatePreview(productId: "com.example.magazine", contentId: "issue-2", from: "0.9", at: 400)?.bytes == 600)
        #expect(Self.catalog.updatePreview(productId: "com.example.magazine", contentId: "issue-9", from: "0.9", at: 400) == nil)
        #expect(Self.catalog.updatePreview(productId: "com.example.nothing", contentId: nil, from: "1.0", at: 400) == nil)
        // Not yet published: no current version.
        #expect(Self.catalog.updatePreview(productId: "com.example.level1", contentId: nil, from: "1.0", at: 200) == nil)
    }
}

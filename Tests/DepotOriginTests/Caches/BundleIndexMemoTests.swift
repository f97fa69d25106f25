import DepotTestSupport
import DepotCore
@testable import DepotOrigin
import Testing

/// An event loop's memo of the bundle it looked up last answers only while the index is the one it was read from.
@Suite("The bundle index and a loop's memo of its last lookup")
struct BundleIndexMemoTests {
    static func bundle(_ digest: String, version: String = "1") -> ServedBundle {
        ServedBundle(
            version: ContentVersion(
                productId: "com.example.memo", contentId: "com.example.memo", version: version, publishedAt: 1_700_000_000,
                digest: .parsed(digest), size: 10, unpackedSize: 10),
            path: "/bundles/\(digest).zip")
    }

    @Test func aReplacedIndexIsReadAgainNotAnsweredFromTheMemo() {
        let first = BundleDigest(hex: String(repeating: "a", count: 64))!
        let second = BundleDigest(hex: String(repeating: "b", count: 64))!
        let index = BundleIndex([Self.bundle(first.hex)])
        var memo = BundleIndex.Memo()

        let found = index.bundle(digest: first, memo: &memo)
        #expect(found?.version.digest == first)
        // Answered again from the memo: the same instance.
        #expect(index.bundle(digest: first, memo: &memo) === found)
        #expect(index.bundle(digest: second, memo: &memo) == nil)
        #expect(index.bundle(digest: first, memo: &memo) === found)

        // Retired: the memo, which holds it, no longer answers for it.
        index.replace(with: [Self.bundle(second.hex)])
        #expect(index.bundle(digest: first, memo: &memo) == nil)
        #expect(index.bundle(digest: second, memo: &memo)?.version.digest == second)
        #expect(index.bundle(digest: first, memo: &memo) == nil)

        // Served again (a new entry): the memo's earlier miss does not hide it.
        index.replace(with: [Self.bundle(first.hex, version: "2"), Self.bundle(second.hex)])
        #expect(index.bundle(digest: first, memo: &memo)?.version.version == "2")
        #expect(index.bundle(digest: first, memo: &memo) === index.bundle(digest: first))
    }
}

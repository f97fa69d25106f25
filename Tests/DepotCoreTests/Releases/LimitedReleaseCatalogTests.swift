import DepotCore
import Testing

/// What a catalog with limited releases offers each audience.
@Suite("Catalog with rollouts and beta")
struct LimitedReleaseCatalogTests {
    static func version(_ number: String, at publishedAt: Int64, byte: UInt8) -> ContentVersion {
        ContentVersion(
            productId: "p", contentId: "p", version: number, publishedAt: publishedAt,
            digest: BundleDigest(bytes: [UInt8](repeating: byte, count: 32))!, size: 10, unpackedSize: 10)
    }

    static let current = version("1.0", at: 100, byte: 1)
    static let rolling = version("1.1", at: 150, byte: 2)
    static let beta = version("1.2", at: 160, byte: 3)
    static let product = Product(id: "p", type: .nonConsumable, title: "P")

    static func catalog(rollout: VersionRelease) -> Catalog {
        Catalog(
            products: [product], versions: [current],
            limited: [LimitedRelease(version: rolling, release: rollout), LimitedRelease(version: beta, release: .beta)])
    }

    static func buyer(within: Bool, percent: Int) -> String {
        (0..<10_000).lazy.map { "account:\($0)" }.first {
            RolloutBucket.isWithin(percent: percent, contentId: "p", version: "1.1", buyer: $0) == within
        }!
    }

    @Test func everyoneElseKeepsTheCurrentVersion() {
        let catalog = Self.catalog(rollout: .rollout(10))
        #expect(catalog.currentContents(of: "p", at: 200) == [Self.current])
        #expect(catalog.currentContents(of: "p", at: 200, for: nil) == [Self.current])
        let outside = ReleaseAudience(buyer: Self.buyer(within: false, percent: 10), isTest: false)
        #expect(catalog.currentContents(of: "p", at: 200, for: outside) == [Self.current])
        let inside = ReleaseAudience(buyer: Self.buyer(within: true, percent: 10), isTest: false)
        #expect(catalog.currentContents(of: "p", at: 200, for: inside) == [Self.rolling])
        // Every version stays served by digest.
        #expect(catalog.version(digest: Self.rolling.digest) == Self.rolling)
        #expect(catalog.version(digest: Self.beta.digest) == Self.beta)
    }

    @Test func testPurchasesGetTheBetaVersion() {
        let catalog = Self.catalog(rollout: .rollout(10))
        let tester = ReleaseAudience(buyer: Self.buyer(within: false, percent: 10), isTest: true)
        #expect(catalog.currentContents(of: "p", at: 200, for: tester) == [Self.beta])
        // Not before its publication time.
        #expect(catalog.currentContents(of: "p", at: 155, for: tester) == [Self.current])
    }

    @Test func aHaltedRolloutKeepsOnlyThoseWhoHaveIt() {
        let catalog = Self.catalog(rollout: VersionRelease(channel: .production, percent: 10, halted: true))
        let inside = Self.buyer(within: true, percent: 10)
        #expect(catalog.hasHaltedRollout(productId: "p"))
        #expect(catalog.currentContents(of: "p", at: 200, for: ReleaseAudience(buyer: inside, isTest: false)) == [Self.current])
        let offered = ReleaseAudience(buyer: inside, isTest: false, offered: [Self.rolling.digest])
        #expect(catalog.currentContents(of: "p", at: 200, for: offered) == [Self.rolling])
        let outsideOffered = ReleaseAudience(buyer: Self.buyer(within: false, percent: 10), isTest: false, offered: [Self.rolling.digest])
        #expect(catalog.currentContents(of: "p", at: 200, for: outsideOffered) == [Self.rolling])
    }

    @Test func aLimitedReleaseOlderThanTheCurrentVersionIsNotOffered() {
        let newer = Self.version("2.0", at: 300, byte: 4)
        let catalog = Catalog(products: [Self.product], versions: [newer], limited: [LimitedRelease(version: Self.beta, release: .beta)])
        #expect(catalog.currentContents(of: "p", at: 400, for: ReleaseAudience(buyer: "b", isTest: true)) == [newer])
    }
}

@testable import DepotServerTestSupport
import DepotTestSupport
import DepotSettings
import DepotCore
@testable import DepotOrigin
import DepotServer
import DepotServices
import Testing

/// The pure parts of the origin role: purge tags and the shared-secret comparison.
@Suite("Edge: purge tags and edge secrets")
struct EdgePiecesTests {
    private static func version(product: String, content: String, version: String) -> ContentVersion {
        ContentVersion(
            productId: product, contentId: content, version: version, publishedAt: 0,
            digest: .repeating("0"), size: 1, unpackedSize: 1)
    }

    @Test(arguments: [
        (
            "com.example.level1", "com.example.level1", "1.0",
            ["product:com.example.level1", "content:com.example.level1", "version:com.example.level1@1.0"]
        ),
        (
            "com.example.monthly", "com.example.monthly.2026-09", "2",
            ["product:com.example.monthly", "content:com.example.monthly.2026-09", "version:com.example.monthly.2026-09@2"]
        ),
        // Separators, `@` and non-ASCII are encoded, so tags never split and never collide.
        (
            "a b,c", "x@y", "1 beta",
            ["product:a%20b%2Cc", "content:x%40y", "version:x%40y@1%20beta"]
        ),
        ("café", "%", "v/1", ["product:caf%C3%A9", "content:%25", "version:%25@v%2F1"]),
    ])
    func purgeTagsNameProductContentAndVersion(product: String, content: String, version: String, expected: [String]) {
        #expect(PurgeTags.tags(for: Self.version(product: product, content: content, version: version)) == expected)
    }

    @Test func distinctIdentifiersNeverShareATag() {
        let a = PurgeTags.tags(for: Self.version(product: "p", content: "x@1", version: "2"))
        let b = PurgeTags.tags(for: Self.version(product: "p", content: "x", version: "1@2"))
        #expect(a[2] != b[2])
    }

    @Test func originHeadersFollowTheSettings() {
        var settings = EdgeSettings.defaults
        let version = Self.version(product: "p", content: "c", version: "1")
        let defaults = OriginHeaders(settings: settings).bundleFields(for: version)
        #expect(defaults.map(\.name) == ["CDN-Cache-Control", "Surrogate-Key"])
        #expect(defaults.map(\.value) == ["max-age=31536000", "product:p content:c version:c@1"])
        settings.lifetimeHeader = .surrogateControl
        settings.lifetimeSeconds = 600
        settings.purgeTagHeader = "Cache-Tag"
        settings.purgeTagSeparator = ","
        let cloudflare = OriginHeaders(settings: settings).bundleFields(for: version)
        #expect(cloudflare.map(\.name) == ["Surrogate-Control", "Cache-Tag"])
        #expect(cloudflare.map(\.value) == ["max-age=600", "product:p,content:c,version:c@1"])
        #expect(OriginHeaders(settings: settings).productListFields.map(\.value) == ["product-lists"])
        #expect(OriginHeaders.none.bundleFields(for: version).isEmpty)
    }

    @Test func secretsAreAcceptedExactlyAndTwoAtOnce() {
        var settings = EdgeSettings.defaults
        let old = String(repeating: "o", count: 32)
        let new = "n3w-" + String(repeating: "x", count: 40)
        #expect(!EdgeSecrets(settings: settings).isEnabled)
        #expect(!EdgeSecrets(settings: settings).accepts(old))
        settings.fillSecrets = [old, new]
        let secrets = EdgeSecrets(settings: settings)
        #expect(secrets.isEnabled)
        #expect(secrets.accepts(old))
        #expect(secrets.accepts(new))
        for wrong in ["", String(old.dropLast()), old + "o", old.uppercased(), " " + new, new + "\0"] {
            #expect(!secrets.accepts(wrong), "accepted \(wrong.debugDescription)")
        }
        settings.fillSecrets = [new]
        #expect(!EdgeSecrets(settings: settings).accepts(old), "a removed secret still works")
    }
}

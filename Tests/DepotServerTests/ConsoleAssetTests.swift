import DepotConsole
import Testing

@testable import DepotServer

/// The console's files and their validators, without a socket: each file's ETag is its own and strong, and
/// `If-None-Match` is compared as RFC 9110 §13.1.2 says.
@Suite("Console assets")
struct ConsoleAssetTests {
    static let etag = "\"0123456789abcdef0123456789abcdef\""

    @Test(arguments: [
        ("\"0123456789abcdef0123456789abcdef\"", true),
        ("W/\"0123456789abcdef0123456789abcdef\"", true),
        ("*", true),
        ("\"other\", \"0123456789abcdef0123456789abcdef\"", true),
        ("  \"other\" ,W/\"0123456789abcdef0123456789abcdef\"  ", true),
        ("\"0123456789abcdef0123456789abcdee\"", false),
        ("0123456789abcdef0123456789abcdef", false),
        ("\"other\"", false),
        ("", false),
        ("W/*", false),
    ])
    func ifNoneMatchIsComparedWeakly(header: String, matches: Bool) {
        #expect(ConsoleRoutes.matches(header, Self.etag) == matches)
    }

    @Test func everyFileHasItsOwnStrongValidatorAndAType() {
        let assets = Array(ConsoleAssets.byName.values)
        #expect(assets.count == 12)
        #expect(Set(assets.map(\.etag)).count == assets.count)
        for asset in assets {
            #expect(asset.etag.count == 34 && asset.etag.hasPrefix("\"") && asset.etag.hasSuffix("\""), "\(asset.name)")
            #expect(asset.etag.dropFirst().dropLast().allSatisfy { $0.isHexDigit && !$0.isUppercase }, "\(asset.name)")
            #expect(!asset.bytes.isEmpty, "\(asset.name)")
            #expect(asset.contentType.contains("/"), "\(asset.name)")
        }
        #expect(ConsoleAssets.byName["index.html"]?.contentType == "text/html; charset=utf-8")
        #expect(ConsoleAssets.byName["app.js"]?.contentType == "text/javascript; charset=utf-8")
        // The same bytes give the same validator, whatever the process.
        let again = ConsoleAsset(name: "x", contentType: "text/plain", text: "abc")
        #expect(again.etag == "\"ba7816bf8f01cfea414140de5dae2223\"")
    }
}

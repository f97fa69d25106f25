import DepotTestSupport
import Foundation

/// The genuine Google Play purchase kept outside the repository (`../shared/realworld/google-play`), and the
/// `googlePlay` section a live server takes it with.
enum GooglePlayFixture {
    /// The genuine purchase's app.
    static let packageName = "com.topdox.android.trivialdrivesample2"

    /// Where the genuine files are.
    static let directory = URL(fileURLWithPath: RepositoryRoot.path)
        .deletingLastPathComponent().appendingPathComponent("shared/realworld/google-play")

    /// A genuine file's text, as kept.
    static func genuine(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    /// The genuine purchase data, byte for byte.
    static func genuinePurchaseData() throws -> String { try genuine("01-subscription-sandbox.purchase.json") }

    /// The genuine signature, without the file's line break.
    static func genuineSignature() throws -> String {
        try genuine("01-subscription-sandbox.signature").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The `googlePlay` section: the genuine app's key and `signer`'s, the genuine subscription and `level1` sold
    /// as the level, `coins` as the consumable.
    static func settings(_ signer: GooglePlayTestSigner) throws -> String {
        let genuineKey = try genuine("app-public-key.base64").trimmingCharacters(in: .whitespacesAndNewlines)
        return """
            "googlePlay": {"packageName": "\(packageName)", "licenseKeys": ["\(genuineKey)", "\(signer.publicKeyBase64)"],
              "products": {"topdox_android_monthly_subscription": "com.example.level1", "level1": "com.example.level1",
                           "coins": "com.example.coins"}}
            """
    }
}

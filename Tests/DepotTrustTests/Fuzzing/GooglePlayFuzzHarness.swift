// Shared by the test target and by the libFuzzer build of `Fuzz/run.sh`, which compiles this file into one
// module with DepotTrust's sources (hence no import of DepotTrust there).
import Crypto
import CryptoExtras
import Foundation

#if !DEPOT_FUZZ_SINGLE_MODULE
import DepotCore
@testable import DepotTrust
#endif

/// Reads arbitrary bytes as a Google Play purchase (Play Billing's purchase data and signature), verified
/// offline, and lists every broken invariant (an empty list: the input is handled correctly).
///
/// Input layout, by the first byte:
/// - `0x01`: the rest is purchase data (any bytes), signed here with the harness's licensing key exactly as
///   Google signs; what verifies must be consistent: the package and the mapping hold, the transaction id is
///   the order id or a token's SHA-256, the original id is its prefix, the environment is `Production` or
///   `Test`, the quantity positive, the Play product id and token kept.
/// - `0x02`: (offset, xor) pairs edit the signature of a valid purchase; it verifies only when the edits
///   changed nothing.
/// - anything else: purchase data, a zero byte, then the signature text, verified against the genuine app's key
///   (from `shared/realworld`, when there); it verifies only when the data is the genuine purchase's byte for
///   byte and the signature its signature (white space aside).
///
/// Every refusal is a `PurchaseRefusal` with a code and a message.
struct GooglePlayFuzzHarness: Sendable {
    static let packageName = "com.example.depot.fuzz"
    static let products = ["level1": "com.example.level1", "coins": "com.example.coins"]
    /// A purchase the harness's key signs, for mode 2.
    static let purchase = Array(
        #"{"orderId":"GPA.3301-2458-1199-40721","packageName":"com.example.depot.fuzz","productId":"level1","purchaseTime":1772355600000,"purchaseState":0,"purchaseToken":"fuzz-token","quantity":1}"#
            .utf8)

    /// The harness's licensing key: made once for these tests and kept here (generating an RSA key at start
    /// leaves an allocation of swift-crypto's behind, which the fuzzer's leak check would report on every run).
    static let licensingKeyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQDCOoKqFhdKJLk9
        wYIh5gkz8kiuHs/2sWOy6b9McvIrOFiMLUp8MVi7aRbOuMbVJiFQaAoTr+bacN53
        SqGi8HAd6na5yUO+opJo5ZL8Lu6xPQccdLsHhbZWOp9mwA/7D5ouZZFQRwyUcJ0C
        kgebWOHlVeSlG//Xrtru9LDr2mOlgSoS7cbUPfA4/eA4kyEiNF8DkJpUQdUyxwPz
        CbLYr2l+/qsTVjx77W5VG6vzlTkAhNg+dKKzjvomwn4vNFVb18kIk1KReX9vplGx
        xfTIiLG/yNJ09Qu/abBbix3vakjjK+hjVaPgw+0LfhJutocWBgeDWbYNHMLSHZK5
        QjT8k/5PAgMBAAECggEACAUGdCNpXsRZabVdvCyVYLG2UoovKA53AWIpZeyxFxvC
        fDc6hho7gbF7IZn7i72BTqKdF+cBby+N3/sS5XlsB7Awqscmpu5rgS1JfmQpsuPE
        MWaYel0JBFJzVnjDsCgaw6Op9liYqmBj+0EwUze+TAvZ3v9i9vLfU1KDI5nm12SF
        Wu4sCm4Hwv8c2UHuVi4vpQlCvYHO+MKSHaTPJ3YdS2GLxewDMu9S1CINBEDJa3yc
        14uhaBRNs6mxZ5/Xp4/63hJHk0kvkFRCVkcYKfDo6GdyJZfnxYzG2b7cC5Wpk2tF
        c+4Xnb5HhxnnsHENYTYAsJvaV/E5bbSrUzfuXuMSQQKBgQD808MGGQk99BF2jG3T
        IvmyCvAwfkHUMcu97Zy3ZATCk8xFEnmA+Hvte0bLi/R5BEFzj+7+FSpaGJArWEvX
        6PYtfpR51fvWIRrK2rkFpSx1kn55A3TksHKaBJ+R5+IODgjnKWRsUjy4i4Oajace
        vzET5DHnQ9FEbSLEIRIC7uIN8QKBgQDEqn5Km5nnt+FDmzt7BKq0PBawt3xE4Eqo
        lDDtbbwtThLhawdjQJplFqx3XW3iNNVugXIQftKTkiHzWnrRIrDwraXDNCJh1OZ5
        KoupmbQjE7a20HqJTz6SCGz8YK1k7IS+UmStcxpKINweupSgstiOVkI0+oe4xagG
        a/vSzcuQPwKBgQCxYXEGqjINwVsvLT8wTu2YuIvjufE9iuJDEp5NHGMqkL9UBq4w
        iiWIbGEzFbIj5ZR2G5m1sevQ4kLj5kLv7IYrTQ+mmzbg+MDvaZ0+FLConGsXRBGT
        ESiWXoAFwgabjcU5SZUnWls3rspaeN+zdrhcGFHay33a4CbwK7OTUz5OQQKBgF4B
        GMjUw6YtELHeG3pb6rSoHDhwHChYBZe67gAveck2DnRNUoSwtpwnUFzl/cYodvSR
        T1JvLHx5V10ZHKemq2j/t8Isw1p8B4ZXPdbdr2ss2yNbV5cWl9P5zw57r6YUIAdR
        HuqBoElal5zglnaRxk2TEaZ9Mi6x2/Tl3MMQt4LFAoGBALGtawTX9euUNPyQrzDK
        D88ajazSEAFP4h9SMjNVAn9ZTrdtL7ExLbPpxjPsbvQq+X28SDK5CPGvgtod6GKw
        TemiptACL8ms+BLeINLGTIWEpAcWNSUo+bt6RMKL2DS56N78oXgmuV5nG9dAHZJL
        4kWvyR095CfDu6S4SyhasV6z
        -----END PRIVATE KEY-----
        """

    let key: _RSA.Signing.PrivateKey
    let verifier: GooglePlayVerifier
    /// The genuine purchase data and signature bytes, and a verifier for its app, when the material is there.
    let genuine: (data: [UInt8], signature: [UInt8], verifier: GooglePlayVerifier)?

    /// A harness with its licensing key, reading the genuine purchase from `realworld` (`google-play/`)
    /// when it is given and there.
    init(realworld: String?) throws {
        key = try _RSA.Signing.PrivateKey(pemRepresentation: Self.licensingKeyPEM)
        let license = try GooglePlayLicenseKey(base64: key.publicKey.derRepresentation.base64EncodedString())
        verifier = GooglePlayVerifier(packageName: Self.packageName, keys: [license], products: Self.products)
        let folder = (realworld ?? "") + "/google-play/"
        if realworld != nil, let data = FileManager.default.contents(atPath: folder + "01-subscription-sandbox.purchase.json"),
            let signature = FileManager.default.contents(atPath: folder + "01-subscription-sandbox.signature"),
            let keyText = FileManager.default.contents(atPath: folder + "app-public-key.base64"),
            let signatureBytes = Data(
                base64Encoded: String(decoding: signature, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        {
            let genuineKey = try GooglePlayLicenseKey(
                base64: String(decoding: keyText, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            let genuineVerifier = GooglePlayVerifier(
                packageName: "com.topdox.android.trivialdrivesample2", keys: [genuineKey],
                products: ["topdox_android_monthly_subscription": "com.example.monthly"])
            genuine = (Array(data), Array(signatureBytes), genuineVerifier)
        } else {
            genuine = nil
        }
    }

    /// The harness's signature over `data`, base64 as Play Billing gives it.
    func sign(_ data: [UInt8]) -> String {
        guard let signature = try? key.signature(for: Insecure.SHA1.hash(data: data), padding: .insecurePKCS1v1_5) else {
            return ""
        }
        return signature.rawRepresentation.base64EncodedString()
    }

    /// Every invariant `input` breaks.
    func violations(_ input: [UInt8]) -> [String] {
        guard let mode = input.first else { return [] }
        let rest = Array(input.dropFirst())
        switch mode {
        case 0x01:
            // What is signed is what is sent: the UTF-8 of the text the bytes read as.
            let text = String(decoding: rest, as: UTF8.self)
            return check(verifier, text, sign(Array(text.utf8)), mustVerify: nil)
        case 0x02:
            guard var signature = Data(base64Encoded: sign(Self.purchase)).map(Array.init) else { return ["no signature"] }
            let original = signature
            var index = 0
            while index + 1 < rest.count {
                signature[Int(rest[index]) % signature.count] ^= rest[index + 1]
                index += 2
            }
            return check(
                verifier, String(decoding: Self.purchase, as: UTF8.self), Data(signature).base64EncodedString(),
                mustVerify: signature == original)
        default:
            guard let genuine else { return [] }
            let parts = input.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
            let data = Array(parts[0])
            let signature = parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : ""
            // White space anywhere in the signature is ignored, as the verifier documents (transports add it).
            let same =
                data == genuine.data
                && Data(base64Encoded: signature.filter { !$0.isWhitespace }).map(Array.init) == genuine.signature
            // The data is verified as the bytes given; text that is not UTF-8 cannot be those bytes.
            guard let text = String(bytes: data, encoding: .utf8) else { return [] }
            return check(genuine.verifier, text, signature, mustVerify: same ? true : false, genuineMode: true)
        }
    }

    /// Verifies one purchase and lists what is wrong with the outcome.
    private func check(
        _ verifier: GooglePlayVerifier, _ data: String, _ signature: String, mustVerify: Bool?, genuineMode: Bool = false
    ) -> [String] {
        var found: [String] = []
        do {
            let purchase = try verifier.verify(purchaseData: data, signature: signature)
            if mustVerify == false { found.append("a purchase verified that must not") }
            let t = purchase.transaction
            if purchase.store != .googlePlay { found.append("store \(purchase.store)") }
            if !genuineMode, !Self.products.values.contains(t.productId) { found.append("unmapped product \(t.productId)") }
            if let playId = t.storeProductId, !genuineMode, Self.products[playId] != t.productId {
                found.append("Play product \(playId) kept for \(t.productId)")
            }
            if t.storeProductId == nil || (t.purchaseToken ?? "").isEmpty { found.append("no Play product id or token kept") }
            if !t.id.hasPrefix(t.originalId) { found.append("original id \(t.originalId) is not a prefix of \(t.id)") }
            if t.environment != "Production" && t.environment != "Test" { found.append("environment \(t.environment)") }
            if t.quantity < 1 { found.append("quantity \(t.quantity)") }
            if t.environment == "Test",
                t.id.utf8.count != 64 || !t.id.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
            {
                found.append("a test purchase's id \(t.id) is not a SHA-256")
            }
        } catch {
            if mustVerify == true { found.append("the purchase was refused: \(error.code)") }
            if error.code.isEmpty || error.message.isEmpty { found.append("a refusal without a code or message") }
        }
        return found
    }
}

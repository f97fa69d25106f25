import Crypto
import DepotAppStoreDouble
import DepotTrust
import Foundation
import Testing

/// The double's token check against the JWS and App Store rules, one bad header or claim at a time: every
/// row differs from a good token in one respect and must be refused for that reason.
@Suite struct AppStoreDoubleTokenTests {
    static let key = P256.Signing.PrivateKey()
    static let now: Int64 = 1_790_000_000
    static let check = AppStoreDoubleToken(
        keyId: "KEY1234567", issuerId: "issuer-1", bundleId: "com.example.depot", publicKey: key.publicKey)

    /// A token from raw header and claims JSON, signed with `key` (or another key).
    static func token(header: String, claims: String, signingKey: P256.Signing.PrivateKey = key) throws -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        return input + "." + Base64URL.encode(Array(try signingKey.signature(for: Data(input.utf8)).rawRepresentation))
    }

    static let goodHeader = #"{"alg":"ES256","kid":"KEY1234567","typ":"JWT"}"#
    static func claims(
        iss: String = "issuer-1", iat: Int64 = now, exp: Int64 = now + 1800, aud: String = "appstoreconnect-v1",
        bid: String = "com.example.depot"
    ) -> String {
        #"{"iss":"\#(iss)","iat":\#(iat),"exp":\#(exp),"aud":"\#(aud)","bid":"\#(bid)"}"#
    }

    @Test func aGoodTokenIsAcceptedUpToAnHourLong() throws {
        #expect(
            Self.check.refusal(authorization: "Bearer " + (try Self.token(header: Self.goodHeader, claims: Self.claims())), now: Self.now)
                == nil)
        let hour = try Self.token(header: Self.goodHeader, claims: Self.claims(exp: Self.now + 3600))
        #expect(Self.check.refusal(authorization: "Bearer " + hour, now: Self.now + 3599) == nil)
    }

    /// Apple's App Store Server Library sends no `iat` (`iss`, `aud`, `bid` and an `exp` five minutes ahead),
    /// and Apple accepts that: so does the double, holding such a token to an hour from now.
    @Test func aTokenWithoutIatIsAcceptedAsApplesLibrarySendsIt() throws {
        let library = #"{"bid":"com.example.depot","iss":"issuer-1","aud":"appstoreconnect-v1","exp":\#(Self.now + 300)}"#
        #expect(
            Self.check.refusal(authorization: "Bearer " + (try Self.token(header: Self.goodHeader, claims: library)), now: Self.now) == nil)
        let hour = #"{"iss":"issuer-1","exp":\#(Self.now + 3600),"aud":"appstoreconnect-v1","bid":"com.example.depot"}"#
        #expect(
            Self.check.refusal(authorization: "Bearer " + (try Self.token(header: Self.goodHeader, claims: hour)), now: Self.now) == nil)
    }

    @Test(arguments: [
        (#"{"alg":"ES384","kid":"KEY1234567","typ":"JWT"}"#, claims(), "alg is not ES256"),
        (#"{"alg":"none","kid":"KEY1234567","typ":"JWT"}"#, claims(), "alg is not ES256"),
        (#"{"alg":"ES256","kid":"OTHER","typ":"JWT"}"#, claims(), "kid is not the key this double issued"),
        (#"{"alg":"ES256","typ":"JWT"}"#, claims(), "kid is not the key this double issued"),
        (#"{"alg":"ES256","kid":"KEY1234567","typ":"JWS"}"#, claims(), "typ is not JWT"),
        (goodHeader, claims(iss: "issuer-2"), "iss is not the issuer id"),
        (goodHeader, claims(aud: "appstoreconnect-v2"), "aud is not appstoreconnect-v1"),
        (goodHeader, claims(bid: "com.example.other"), "bid is not com.example.depot"),
        (goodHeader, claims(iat: now - 4000, exp: now - 1), "expired"),
        (goodHeader, claims(exp: now), "expired"),
        (goodHeader, claims(iat: now, exp: now + 3601), "exp is more than 60 minutes after iat"),
        (goodHeader, claims(iat: now + 600, exp: now + 1200), "iat is in the future"),
        (goodHeader, claims(iat: .min, exp: .max), "exp is more than 60 minutes after iat"),
        (
            goodHeader, #"{"iss":"issuer-1","exp":\#(Int64.max),"aud":"appstoreconnect-v1","bid":"com.example.depot"}"#,
            "exp is more than 60 minutes from now"
        ),
        (goodHeader, #"{"iss":"issuer-1","aud":"appstoreconnect-v1","bid":"com.example.depot"}"#, "unreadable claims"),
        (
            goodHeader, #"{"iss":"issuer-1","exp":\#(now + 7200),"aud":"appstoreconnect-v1","bid":"com.example.depot"}"#,
            "exp is more than 60 minutes from now"
        ),
        (goodHeader, #"{"iss":"issuer-1","exp":\#(now),"aud":"appstoreconnect-v1","bid":"com.example.depot"}"#, "expired"),
        (goodHeader, #"{"iss":"issuer-1","exp":\#(now + 300),"aud":"appstoreconnect-v1"}"#, "bid is not com.example.depot"),
        ("not json", claims(), "unreadable header"),
    ])
    func badHeadersAndClaimsAreRefused(header: String, claims: String, reason: String) throws {
        let token = try Self.token(header: header, claims: claims)
        #expect(Self.check.refusal(authorization: "Bearer " + token, now: Self.now) == reason)
    }

    @Test func badSignaturesAndShapesAreRefused() throws {
        let good = try Self.token(header: Self.goodHeader, claims: Self.claims())
        let otherKey = try Self.token(header: Self.goodHeader, claims: Self.claims(), signingKey: P256.Signing.PrivateKey())
        #expect(Self.check.refusal(authorization: "Bearer " + otherKey, now: Self.now) == "signature does not verify with the double's key")
        // Claims swapped under a valid signature of other claims.
        let parts = good.split(separator: ".")
        let swapped = parts[0] + "." + Base64URL.encode(Array(Self.claims(bid: "com.example.other").utf8)) + "." + parts[2]
        #expect(Self.check.refusal(authorization: "Bearer " + swapped, now: Self.now) == "signature does not verify with the double's key")
        #expect(Self.check.refusal(authorization: nil, now: Self.now) == "no Bearer token")
        #expect(Self.check.refusal(authorization: "Basic " + good, now: Self.now) == "no Bearer token")
        #expect(Self.check.refusal(authorization: "Bearer " + parts[0] + "." + parts[1], now: Self.now) == "not a compact JWS")
        #expect(Self.check.refusal(authorization: "Bearer a.b!.c", now: Self.now) == "not base64url")
    }
}

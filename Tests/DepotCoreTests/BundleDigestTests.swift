import DepotCore
import Foundation
import Testing

/// A bundle digest is 32 bytes with exactly one text form: 64 lowercase hex digits.
@Suite("Bundle digests and hex")
struct BundleDigestTests {
    static let sample = "00ff10ab" + String(repeating: "5", count: 48) + "c0ffee01"

    @Test func textAndBytesRoundTrip() throws {
        let digest = try #require(BundleDigest(hex: Self.sample))
        #expect(digest.hex == Self.sample)
        #expect(digest.description == Self.sample)
        #expect(digest.bytes.count == 32)
        #expect(digest.bytes.prefix(4) == [0x00, 0xFF, 0x10, 0xAB])
        #expect(digest.bytes.suffix(4) == [0xC0, 0xFF, 0xEE, 0x01])
        #expect(BundleDigest(bytes: digest.bytes) == digest)
        #expect(digest.shard == "00")
    }

    @Test(arguments: [
        "", String(repeating: "a", count: 63), String(repeating: "a", count: 65), String(repeating: "A", count: 64),
        String(repeating: "a", count: 63) + "g", String(repeating: "a", count: 63) + " ", "../../etc/passwd",
        String(repeating: "a", count: 62) + "é", String(repeating: "a", count: 63) + "\u{0}",
    ])
    func anythingButSixtyFourLowercaseHexDigitsIsRefused(text: String) {
        #expect(BundleDigest(hex: text) == nil)
    }

    /// Every ASCII character at every place of a digest: only `0`-`9` and `a`-`f` are taken, each with its value.
    @Test func everyPlaceTakesExactlyTheLowercaseHexDigits() throws {
        let digits = Array("0123456789abcdef".utf8)
        for place in 0..<BundleDigest.hexCount {
            for byte in UInt8(0)...127 {
                var text = [UInt8](repeating: UInt8(ascii: "0"), count: BundleDigest.hexCount)
                text[place] = byte
                let parsed = BundleDigest(hex: String(decoding: text, as: UTF8.self))
                guard let value = digits.firstIndex(of: byte) else {
                    #expect(parsed == nil, "byte \(byte) at \(place)")
                    continue
                }
                let digest = try #require(parsed, "byte \(byte) at \(place)")
                #expect(digest.hex == String(decoding: text, as: UTF8.self))
                // The digit's value, in its half of its byte.
                let shift = place % 2 == 0 ? 4 : 0
                #expect(Int(digest.bytes[place / 2]) == value << shift)
            }
        }
    }

    @Test(arguments: [0, 1, 31, 33, 64])
    func onlyThirtyTwoBytesMakeADigest(count: Int) {
        #expect(BundleDigest(bytes: [UInt8](repeating: 7, count: count)) == nil)
    }

    @Test func orderAndEqualityFollowTheBytes() throws {
        var generator = SystemRandomNumberGenerator()
        let digests = try (0..<200).map { _ in
            try #require(BundleDigest(bytes: (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        }
        #expect(digests.sorted().map(\.hex) == digests.map(\.hex).sorted())
        #expect(Set(digests).count == Set(digests.map(\.hex)).count)
        let copy = try #require(BundleDigest(hex: digests[0].hex))
        #expect(copy == digests[0] && copy.hashValue == digests[0].hashValue)
    }

    @Test func codableAsItsTextAndRefusingAnyOther() throws {
        let digest = try #require(BundleDigest(hex: Self.sample))
        let encoded = try JSONEncoder().encode([digest])
        #expect(String(decoding: encoded, as: UTF8.self) == "[\"\(Self.sample)\"]")
        #expect(try JSONDecoder().decode([BundleDigest].self, from: encoded) == [digest])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([BundleDigest].self, from: Data("[\"\(Self.sample.uppercased())\"]".utf8))
        }
    }

    @Test func hexEncodesAndDecodesAnyBytes() {
        #expect(Hex.lowercase([]) == "")
        #expect(Hex.lowercase([0x00, 0x0F, 0xA0, 0xFF]) == "000fa0ff")
        #expect(Hex.bytes("000fA0ff") == [0x00, 0x0F, 0xA0, 0xFF])
        #expect(Hex.bytes("abc") == nil)
        #expect(Hex.bytes("zz") == nil)
        #expect(Hex.bytes("") == [])
        let all = (0...255).map { UInt8($0) }
        #expect(Hex.bytes(Hex.lowercase(all)) == all)
    }
}

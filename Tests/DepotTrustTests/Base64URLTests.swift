import Foundation
import Testing

@testable import DepotTrust

/// `Base64URL.decode` against Foundation's base64 decoder, on every length and on every kind of bad input.
@Suite struct Base64URLTests {
    /// Foundation's decoding of unpadded base64url: the alphabet mapped back and the padding restored.
    static func foundationDecode(_ text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard).map { Array($0) }
    }

    @Test func decodesWhatFoundationDecodesAtEveryLength() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Base64URL.encode(bytes)
            #expect(Base64URL.decode(text) == bytes, "length \(length)")
            #expect(Self.foundationDecode(text) == bytes, "length \(length)")
            // A substring (not at the start of its string) decodes alike.
            let embedded = "x." + text + ".y"
            let part = embedded.split(separator: ".", omittingEmptySubsequences: false)[1]
            #expect(Base64URL.decode(part) == bytes, "length \(length)")
        }
    }

    @Test func refusesAnyByteOutsideTheAlphabetAtAnyPosition() {
        let text = Base64URL.encode(Array("the quick brown fox jumps".utf8))
        for position in 0..<text.utf8.count {
            for bad in ["=", "+", "/", " ", "\n", ".", "\u{0}", "é", "\u{FF}"] {
                var characters = Array(text)
                characters[position] = Character(bad)
                #expect(Base64URL.decode(String(characters)) == nil, "\(bad.debugDescription) at \(position)")
            }
        }
    }

    @Test func refusesImpossibleLengthsAndNonZeroTrailingBits() {
        // One sextet left over: no byte.
        for text in ["A", "AAAAA", "AAAAAAAAA"] { #expect(Base64URL.decode(text) == nil, "\(text)") }
        // Two sextets carry 8 bits and 4 unused ones, three carry 16 and 2: each unused bit set in turn is refused.
        for (prefix, unusedBits) in [("Q", 4), ("QU", 2)] {
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            for value in 0..<64 {
                let text = prefix + String(alphabet[value])
                let canonical = value & ((1 << unusedBits) - 1) == 0
                #expect((Base64URL.decode(text) != nil) == canonical, "\(text)")
                if canonical { #expect(Base64URL.decode(text) == Self.foundationDecode(text), "\(text)") }
            }
        }
    }
}

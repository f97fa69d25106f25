import Foundation
import Testing

@testable import DepotTrust

/// `JSONReader` reads what Foundation's `JSONDecoder` read before it, and refuses what RFC 8259 refuses.
@Suite("JSON reader")
struct JSONReaderTests {
    /// What `JSONDecoder` makes of the same bytes, through `JSONValue`'s `Decodable` conformance.
    static func decoded(_ text: String) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    static func read(_ text: String) -> JSONValue? {
        JSONReader.value(of: Array(text.utf8))
    }

    @Test func everyGenuineSignedPayloadAndHeaderReadsAsJSONDecoderReadsIt() throws {
        let directory = GenuineAppleDataTests.directory.appendingPathComponent("apple-signed")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".jws") }
        #expect(files.count >= 15, "the genuine JWS are in ../shared/realworld/apple-signed")
        var parts = 0
        for file in files {
            let jws = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            for part in jws.split(separator: ".").prefix(2) {
                let bytes = try #require(Base64URL.decode(part), "\(file)")
                let read = JSONReader.value(of: bytes)
                #expect(read != nil, "\(file)")
                #expect(read == (try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))), "\(file)")
                parts += 1
            }
        }
        #expect(parts == files.count * 2)
    }

    @Test func valuesOfEveryKindReadAsJSONDecoderReadsThem() {
        let texts = [
            #"{}"#, #"[]"#, #"{"a": []}"#, " \t\r\n{ \"a\" : 1 , \"b\" : [ true , false , null ] } \n",
            #"{"n": 0, "m": -0, "big": 9223372036854775807, "small": -9223372036854775808}"#,
            #"{"over": 9223372036854775808, "under": -9223372036854775809}"#,
            #"{"f": 1.5, "e": 1e3, "E": -2.5E-3, "z": 0.0, "x": 1E+2}"#,
            #"{"s": "plain", "esc": "\"\\\/\b\f\n\r\t", "u": "\u00e9\u4e2d\ud83d\ude00", "nul": "\u0000"}"#,
            #"{"utf8": "é中😀", "deep": [[[[{"k": [1, {"v": "w"}]}]]]]}"#,
            "[1, 2.25, \"three\", {\"four\": [5]}]", "\"text\"", "42", "-7", "true", "null",
        ]
        for text in texts {
            let read = Self.read(text)
            #expect(read != nil, "\(text)")
            #expect(read == Self.decoded(text), "\(text)")
        }
        #expect(Self.read(#"{"big": 9223372036854775807}"#) == .object(["big": .integer(.max)]))
        #expect(Self.read(#"{"over": 9223372036854775808}"#) == .object(["over": .number(9_223_372_036_854_775_808)]))
        #expect(Self.read(#"-9223372036854775808"#) == .integer(.min))
        #expect(Self.read(#""\ud83d\ude00""#) == .string("😀"))
    }

    @Test func randomValuesWrittenByJSONEncoderReadBackWhole() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let value = Self.randomValue(depth: 0, using: &generator)
            let encoder = JSONEncoder()
            encoder.outputFormatting = Bool.random(using: &generator) ? [.prettyPrinted] : []
            let bytes = Array(try encoder.encode(value))
            let read = JSONReader.value(of: bytes)
            #expect(read == value, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test func whatRFC8259RefusesIsRefused() {
        let refused = [
            "", " ", "{", "}", "[", "{\"a\" 1}", "{\"a\": 1,}", "[1,]", "[1 2]", "{a: 1}", "{'a': 1}", "01", "-", "1.",
            ".5", "1e", "1e+", "+1", "0x10", "NaN", "Infinity", "1e999", "-1e999", "tru", "nul", "True", "\"open",
            "\"tab\there\"", "\"line\nbreak\"", "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"", "\"\\ud83d\"", "\"\\ude00\"",
            "\"\\ud83d\\u0041\"", "{\"a\": 1} x", "[] []", "{\"a\": 1, \"a\": 2}",
        ]
        for text in refused { #expect(Self.read(text) == nil, "\(text.debugDescription)") }
        // Invalid UTF-8 inside a string, with and without an escape before it.
        #expect(JSONReader.value(of: [0x22, 0xC3, 0x28, 0x22]) == nil)
        #expect(JSONReader.value(of: [0x22, 0x5C, 0x6E, 0xFF, 0x22]) == nil)
        #expect(JSONReader.value(of: [0x22, 0xED, 0xA0, 0x80, 0x22]) == nil)  // a surrogate written as UTF-8
    }

    @Test func nestingStopsAtTheMaximumDepth() {
        let depth = JSONReader.maximumDepth
        #expect(Self.read(String(repeating: "[", count: depth) + String(repeating: "]", count: depth)) != nil)
        #expect(Self.read(String(repeating: "[", count: depth + 1) + String(repeating: "]", count: depth + 1)) == nil)
        let objects = String(repeating: "{\"k\":", count: depth + 1) + "1" + String(repeating: "}", count: depth + 1)
        #expect(Self.read(objects) == nil)
        // Far deeper input is refused without exhausting the stack.
        #expect(Self.read(String(repeating: "[", count: 100_000)) == nil)
    }

    static func randomValue(depth: Int, using generator: inout SystemRandomNumberGenerator) -> JSONValue {
        let kinds = depth >= 4 ? 6 : 8
        switch Int.random(in: 0..<kinds, using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .integer(Int64.random(in: .min ... .max, using: &generator))
        case 3: return .integer(Int64.random(in: -1000...1000, using: &generator))
        case 4: return .number(Double.random(in: -1e6...1e6, using: &generator).rounded() + 0.5)
        case 5: return .string(randomString(using: &generator))
        case 6:
            return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in randomValue(depth: depth + 1, using: &generator) })
        default:
            var object: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                object[randomString(using: &generator)] = randomValue(depth: depth + 1, using: &generator)
            }
            return .object(object)
        }
    }

    static func randomString(using generator: inout SystemRandomNumberGenerator) -> String {
        let alphabet: [Character] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{01}", "é", "中", "😀", "\u{7F}"]
        return String((0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
    }
}

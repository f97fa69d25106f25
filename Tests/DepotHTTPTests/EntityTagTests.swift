import DepotHTTP
import Testing

@Suite("Entity tags (RFC 9110 §8.8.3, §13.1.1, §13.1.2)")
struct EntityTagTests {
    struct ListCase: Sendable, CustomTestStringConvertible {
        var lines: [String]
        var expected: EntityTagList?
        var testDescription: String { lines.map { "[\($0)]" }.joined(separator: " + ") }
    }

    static func strong(_ tag: String) -> EntityTag { EntityTag(opaqueTag: tag) }
    static func weak(_ tag: String) -> EntityTag { EntityTag(opaqueTag: tag, isWeak: true) }

    @Test(
        "list parsing",
        arguments: [
            ListCase(lines: ["\"abc\""], expected: .tags([strong("abc")])),
            ListCase(lines: ["W/\"abc\""], expected: .tags([weak("abc")])),
            ListCase(lines: ["\"a\", W/\"b\",\"c\""], expected: .tags([strong("a"), weak("b"), strong("c")])),
            ListCase(lines: ["\"a\" \t,\t \"b\""], expected: .tags([strong("a"), strong("b")])),
            ListCase(lines: [", ,\"a\""], expected: .tags([strong("a")])),  // §5.6.1.2 empty elements
            ListCase(lines: ["\"a\",,"], expected: .tags([strong("a")])),
            ListCase(lines: ["\"\""], expected: .tags([strong("")])),
            ListCase(lines: ["\"a,b\""], expected: .tags([strong("a,b")])),
            ListCase(lines: ["\"é\""], expected: .tags([strong("é")])),  // obs-text
            ListCase(lines: [""], expected: .tags([])),
            ListCase(lines: ["*"], expected: .any),
            ListCase(lines: [" * "], expected: .any),
            ListCase(lines: ["\"a\"", "W/\"b\""], expected: .tags([strong("a"), weak("b")])),  // §5.3 combine
            ListCase(lines: ["abc"], expected: nil),
            ListCase(lines: ["\"abc"], expected: nil),
            ListCase(lines: ["w/\"abc\""], expected: nil),  // "W/" is case-sensitive
            ListCase(lines: ["W/ \"abc\""], expected: nil),
            ListCase(lines: ["\"a\" \"b\""], expected: nil),
            ListCase(lines: ["\"a b\""], expected: nil),
            ListCase(lines: ["\"a\u{7F}\""], expected: nil),
            ListCase(lines: ["\"a\u{1}\""], expected: nil),
            ListCase(lines: ["\"a\", *"], expected: nil),
            ListCase(lines: ["**"], expected: nil),
            ListCase(lines: ["*", "\"a\""], expected: nil),  // `*` must stand alone
            ListCase(lines: ["*", "*"], expected: nil),
        ])
    func parsesLists(_ row: ListCase) {
        #expect(EntityTagList(fieldLines: row.lines) == row.expected)
    }

    struct Comparison: Sendable, CustomTestStringConvertible {
        var left: EntityTag
        var right: EntityTag
        var strong: Bool
        var weak: Bool
        var testDescription: String { left.fieldValue + " vs " + right.fieldValue }
    }

    @Test(
        "strong and weak comparison (the table of §8.8.3.2)",
        arguments: [
            Comparison(left: weak("1"), right: weak("1"), strong: false, weak: true),
            Comparison(left: weak("1"), right: weak("2"), strong: false, weak: false),
            Comparison(left: weak("1"), right: strong("1"), strong: false, weak: true),
            Comparison(left: strong("1"), right: strong("1"), strong: true, weak: true),
            Comparison(left: strong("1"), right: strong("2"), strong: false, weak: false),
        ])
    func compares(_ row: Comparison) {
        #expect(row.left.matches(row.right, by: .strong) == row.strong)
        #expect(row.left.matches(row.right, by: .weak) == row.weak)
        #expect(row.right.matches(row.left, by: .strong) == row.strong)
        #expect(EntityTagList.tags([row.left]).contains(row.right, by: .weak) == row.weak)
    }

    struct MatchCase: Sendable, CustomTestStringConvertible {
        var lines: [String]
        var comparison: EntityTagComparison
        var expected: EntityTagList.Match
        var testDescription: String { "\(lines) \(comparison)" }
    }

    @Test(
        "matching field lines against the current tag without building the list",
        arguments: [
            MatchCase(lines: ["\"abc123\""], comparison: .strong, expected: .matched),
            MatchCase(lines: ["W/\"abc123\""], comparison: .strong, expected: .notMatched),
            MatchCase(lines: ["W/\"abc123\""], comparison: .weak, expected: .matched),
            MatchCase(lines: ["\"x\", \"abc123\""], comparison: .strong, expected: .matched),
            MatchCase(lines: ["\"x\"", "\"abc123\""], comparison: .strong, expected: .matched),
            MatchCase(lines: ["\"abc1234\""], comparison: .weak, expected: .notMatched),
            MatchCase(lines: ["*"], comparison: .strong, expected: .matched),
            MatchCase(lines: ["\"abc123\", junk"], comparison: .strong, expected: .malformed),
            MatchCase(lines: [""], comparison: .strong, expected: .notMatched),
        ])
    func matches(_ row: MatchCase) {
        #expect(EntityTagList.match(row.lines, currentTag: exampleTag, by: row.comparison) == row.expected)
    }

    @Test(
        "single tag parsing",
        arguments: [
            ("\"abc\"", EntityTag?.some(strong("abc"))), ("W/\"abc\"", weak("abc")), (" \"abc\" ", strong("abc")),
            ("abc", nil), ("\"abc\", \"d\"", nil), ("*", nil), ("\"abc\"x", nil), ("", nil),
        ])
    func parsesTag(_ value: String, _ expected: EntityTag?) {
        #expect(EntityTag(parsing: value) == expected)
    }

    @Test("field value")
    func fieldValue() {
        #expect(Self.strong("abc").fieldValue == "\"abc\"")
        #expect(Self.weak("abc").fieldValue == "W/\"abc\"")
    }
}

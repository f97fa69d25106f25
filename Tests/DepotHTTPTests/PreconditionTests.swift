import DepotHTTP
import Testing

private let older = HTTPDate.format(exampleDate - 1)
private let same = exampleIMF
private let newer = HTTPDate.format(exampleDate + 1)
private let future = HTTPDate.format(exampleNow + 3600)

@Suite("Preconditions in RFC 9110 §13.2.2 order")
struct PreconditionTests {
    static let cases: [PlanCase] = [
        PlanCase(name: "no conditional fields: 200", headers: [], status: 200, body: .file(offset: 0, length: 100)),
        // Step 1, §13.1.1
        PlanCase(name: "If-Match with the current tag", headers: [field("If-Match", "\"abc123\"")], status: 200),
        PlanCase(name: "If-Match with another tag: 412", headers: [field("If-Match", "\"other\"")], status: 412),
        PlanCase(name: "If-Match *: the representation exists", headers: [field("If-Match", "*")], status: 200),
        PlanCase(name: "If-Match weak tag never matches", headers: [field("If-Match", "W/\"abc123\"")], status: 412),
        PlanCase(
            name: "If-Match list containing the tag", headers: [field("If-Match", "\"x\", \"abc123\"")], status: 200),
        PlanCase(
            name: "If-Match lines combine", headers: [field("If-Match", "\"x\""), field("if-match", "\"abc123\"")],
            status: 200),
        PlanCase(name: "If-Match malformed fails safe: 412", headers: [field("If-Match", "abc123")], status: 412),
        PlanCase(name: "If-Match empty list: 412", headers: [field("If-Match", "")], status: 412),
        PlanCase(
            name: "If-Match * next to a tag is malformed: 412",
            headers: [field("If-Match", "*"), field("If-Match", "\"abc123\"")],
            status: 412),
        PlanCase(
            name: "If-Match wins over If-Unmodified-Since",
            headers: [field("If-Match", "\"abc123\""), field("If-Unmodified-Since", older)], status: 200),
        PlanCase(
            name: "If-Match * wins over If-Unmodified-Since",
            headers: [field("If-Match", "*"), field("If-Unmodified-Since", older)],
            status: 200),
        PlanCase(
            name: "failed If-Match beats a matching If-None-Match",
            headers: [field("If-Match", "\"other\""), field("If-None-Match", "\"abc123\"")], status: 412),
        // Step 2, §13.1.4
        PlanCase(
            name: "If-Unmodified-Since before Last-Modified: 412", headers: [field("If-Unmodified-Since", older)],
            status: 412),
        PlanCase(
            name: "If-Unmodified-Since equal to Last-Modified", headers: [field("If-Unmodified-Since", same)],
            status: 200),
        PlanCase(
            name: "If-Unmodified-Since after Last-Modified", headers: [field("If-Unmodified-Since", newer)], status: 200
        ),
        PlanCase(
            name: "If-Unmodified-Since unparseable: ignored", headers: [field("If-Unmodified-Since", "yesterday")],
            status: 200),
        PlanCase(
            name: "If-Unmodified-Since twice: invalid, ignored",
            headers: [field("If-Unmodified-Since", older), field("If-Unmodified-Since", older)], status: 200),
        // Step 3, §13.1.2
        PlanCase(
            name: "If-None-Match with the current tag: 304", headers: [field("If-None-Match", "\"abc123\"")],
            status: 304),
        PlanCase(
            name: "If-None-Match weak tag matches weakly: 304", headers: [field("If-None-Match", "W/\"abc123\"")],
            status: 304),
        PlanCase(name: "If-None-Match *: 304", headers: [field("If-None-Match", "*")], status: 304),
        PlanCase(name: "If-None-Match another tag: 200", headers: [field("If-None-Match", "\"other\"")], status: 200),
        PlanCase(
            name: "If-None-Match with empty elements", headers: [field("If-None-Match", ", ,\"abc123\"")], status: 304),
        PlanCase(
            name: "If-None-Match on HEAD: 304", method: .head, headers: [field("If-None-Match", "\"abc123\"")],
            status: 304),
        PlanCase(
            name: "If-None-Match on another method: 412", method: .other, headers: [field("If-None-Match", "*")],
            status: 412),
        PlanCase(name: "If-None-Match malformed: ignored", headers: [field("If-None-Match", "abc123")], status: 200),
        PlanCase(
            name: "If-None-Match malformed still turns off If-Modified-Since",
            headers: [field("If-None-Match", "abc123"), field("If-Modified-Since", newer)], status: 200),
        PlanCase(
            name: "If-None-Match wins over If-Modified-Since (no match)",
            headers: [field("If-None-Match", "\"other\""), field("If-Modified-Since", newer)], status: 200),
        PlanCase(
            name: "If-None-Match wins over If-Modified-Since (match)",
            headers: [field("If-None-Match", "\"abc123\""), field("If-Modified-Since", older)], status: 304),
        PlanCase(
            name: "header names are case-insensitive", headers: [field("IF-NONE-MATCH", "\"abc123\"")], status: 304),
        // Step 4, §13.1.3
        PlanCase(
            name: "If-Modified-Since after Last-Modified: 304", headers: [field("If-Modified-Since", newer)],
            status: 304),
        PlanCase(
            name: "If-Modified-Since equal to Last-Modified: 304", headers: [field("If-Modified-Since", same)],
            status: 304),
        PlanCase(
            name: "If-Modified-Since before Last-Modified: 200", headers: [field("If-Modified-Since", older)],
            status: 200),
        PlanCase(
            name: "If-Modified-Since RFC 850", headers: [field("If-Modified-Since", "Sunday, 06-Nov-94 08:49:37 GMT")],
            status: 304),
        PlanCase(
            name: "If-Modified-Since asctime", headers: [field("If-Modified-Since", "Sun Nov  6 08:49:37 1994")],
            status: 304),
        PlanCase(
            name: "If-Modified-Since unparseable: ignored", headers: [field("If-Modified-Since", "Feb 30")], status: 200
        ),
        PlanCase(
            name: "If-Modified-Since Feb 30: ignored",
            headers: [field("If-Modified-Since", "Wed, 30 Feb 2000 00:00:00 GMT")],
            status: 200),
        PlanCase(
            name: "If-Modified-Since later than now: invalid", headers: [field("If-Modified-Since", future)],
            status: 200),
        PlanCase(
            name: "If-Modified-Since twice: invalid",
            headers: [field("If-Modified-Since", newer), field("If-Modified-Since", newer)],
            status: 200),
        PlanCase(
            name: "If-Modified-Since on HEAD: 304", method: .head, headers: [field("If-Modified-Since", newer)],
            status: 304),
        PlanCase(
            name: "If-Modified-Since on another method: ignored", method: .other,
            headers: [field("If-Modified-Since", newer)],
            status: 200),
        // Preconditions come before Range (step 5).
        PlanCase(
            name: "304 before Range", headers: [field("If-None-Match", "\"abc123\""), field("Range", "bytes=0-0")],
            status: 304),
        PlanCase(
            name: "412 before Range", headers: [field("If-Match", "\"x\""), field("Range", "bytes=0-0")], status: 412),
        PlanCase(
            name: "412 before an unsatisfiable Range",
            headers: [field("If-Match", "\"x\""), field("Range", "bytes=500-")],
            status: 412),
    ]

    @Test("status and body", arguments: cases)
    func evaluates(_ row: PlanCase) {
        let result = row.run()
        #expect(result.status == row.status)
        if let body = row.body { #expect(result.body == body) }
    }
}

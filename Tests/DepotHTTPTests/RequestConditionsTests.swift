import DepotHTTP
import Testing

@Suite("Collecting the request fields")
struct RequestConditionsTests {
    @Test("names are case-insensitive and every line is kept in order")
    func collects() {
        let request = RequestConditions(
            method: .get,
            headers: [
                (name: "if-none-match", value: "\"a\""), (name: "Accept", value: "*/*"),
                (name: "IF-NONE-MATCH", value: "\"b\""),
                (name: "If-Match", value: "*"), (name: "if-modified-since", value: "x"),
                (name: "If-Unmodified-Since", value: "y"), (name: "If-Range", value: "z"),
                (name: "rAnGe", value: "bytes=0-0"),
                (name: "Ranges", value: "no"), (name: "If-Matches", value: "no"),
            ])
        #expect(request.ifNoneMatch == ["\"a\"", "\"b\""])
        #expect(request.ifMatch == ["*"])
        #expect(request.ifModifiedSince == ["x"])
        #expect(request.ifUnmodifiedSince == ["y"])
        #expect(request.ifRange == ["z"])
        #expect(request.range == ["bytes=0-0"])
        #expect(!request.isUnconditional)
    }

    @Test("unrelated fields leave the request unconditional")
    func unconditional() {
        let request = RequestConditions(
            method: .get, headers: [(name: "Host", value: "x"), (name: "Authorization", value: "Bearer t")])
        #expect(request.isUnconditional)
    }
}

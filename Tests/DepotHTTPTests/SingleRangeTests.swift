import DepotHTTP
import Testing

/// `ConditionalEvaluator.singleRange` is the evaluator's own answer for the commonest ranged request: it names a
/// range exactly when `plan` answers with a single-part 206, and that 206 is `ResponsePlan.partial` of it.
@Suite("The single-range shortcut agrees with the full evaluation")
struct SingleRangeTests {
    /// Requests around the shortcut's edges: ranges of every form, several, unsatisfiable, invalid, and every
    /// conditional field that must send the request to the full evaluation.
    static let requests: [(method: RequestMethod, headers: [HeaderField])] = {
        var rows: [(RequestMethod, [HeaderField])] = []
        let ranges = [
            "bytes=0-0", "bytes=0-99", "bytes=10-19", "bytes=99-99", "bytes=99-", "bytes=0-", "bytes=-1", "bytes=-100",
            "bytes=-500", "bytes=50-5000", "bytes=100-", "bytes=100-200", "bytes=20-10", "bytes=0-9,20-29",
            "bytes=0-9,5-15", "bytes=0-9,10-19", "bytes=-0", "bytes=", "items=0-9", "bytes= 0-9", "bytes=0-9 ",
            "BYTES=0-9", "bytes=1-2,", "bytes=0-9,0-9,0-9",
        ]
        for range in ranges {
            rows.append((.get, [field("Range", range)]))
            rows.append((.head, [field("Range", range)]))
            rows.append((.get, [field("Range", range), field("Range", range)]))
            rows.append((.get, [field("Range", range), field("If-Range", "\"\(exampleTag)\"")]))
            rows.append((.get, [field("Range", range), field("If-Range", "\"other\"")]))
            rows.append((.get, [field("Range", range), field("If-None-Match", "\"other\"")]))
            rows.append((.get, [field("Range", range), field("If-Match", "\"\(exampleTag)\"")]))
            rows.append((.get, [field("Range", range), field("If-Modified-Since", exampleIMF)]))
            rows.append((.get, [field("Range", range), field("If-Unmodified-Since", exampleIMF)]))
        }
        rows.append((.get, []))
        rows.append((.get, [field("If-None-Match", "*")]))
        return rows
    }()

    @Test func itNamesARangeExactlyWhenThePlanIsASinglePart206() {
        let representation = representation()
        var shortcuts = 0
        for (method, headers) in Self.requests {
            let request = RequestConditions(method: method, headers: headers.map { (name: $0.name, value: $0.value) })
            let full = ConditionalEvaluator.plan(
                for: request, representation: representation, now: exampleNow, boundary: "BOUNDARY")
            let range = ConditionalEvaluator.singleRange(for: request, representation: representation)
            if let range {
                shortcuts += 1
                #expect(full.status == 206 && full.body == .file(offset: range.first, length: range.length), "\(headers)")
                #expect(
                    full.headers == [
                        field("Content-Range", range.contentRange(size: representation.size)),
                        field("Content-Length", String(range.length)),
                    ] + ResponsePlan.partialFieldsAfterLength(representation), "\(headers)")
            } else if full.status == 206, case .file = full.body {
                // A single-part 206 the shortcut leaves to the full evaluation: only behind a condition that held.
                #expect(headers.count > 1, "\(headers)")
            }
        }
        #expect(shortcuts >= 10)
    }
}

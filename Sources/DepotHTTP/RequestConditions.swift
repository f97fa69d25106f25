/// The request method, as far as conditional and range handling care (RFC 9110 §13.2.2, §14.2).
package enum RequestMethod: Sendable {
    case get
    case head
    case other
}

/// The request header fields the evaluator reads: If-Match, If-None-Match, If-Modified-Since,
/// If-Unmodified-Since, If-Range and Range.
///
/// Built from raw header pairs; names compare case-insensitively (RFC 9110 §5.1) and every field line is
/// kept, in order, so that list fields can be combined (§5.3) and repeated singleton fields detected.
/// Values are kept as received and parsed only when the evaluator needs them.
package struct RequestConditions: Sendable {
    package var method: RequestMethod
    package var ifMatch: [String] = []
    package var ifNoneMatch: [String] = []
    package var ifModifiedSince: [String] = []
    package var ifUnmodifiedSince: [String] = []
    package var ifRange: [String] = []
    package var range: [String] = []

    /// Picks the six fields out of `headers`; other fields are skipped after a length check.
    package init(method: RequestMethod, headers: some Sequence<(name: String, value: String)>) {
        self.init(method: method)
        for (name, value) in headers { add(name: name, value: value) }
    }

    /// Conditions with no fields yet; `add(name:value:)` takes them one by one (a non-generic path for
    /// callers iterating their own header storage).
    package init(method: RequestMethod) {
        self.method = method
    }

    /// Keeps one field line if it is one of the six; other names are skipped after a length check.
    package mutating func add(name: String, value: String) {
        switch name.utf8.count {
        case 5:
            if ASCII.fieldName(name, equals: "range") { range.append(value) }
        case 8:
            if ASCII.fieldName(name, equals: "if-match") {
                ifMatch.append(value)
            } else if ASCII.fieldName(name, equals: "if-range") {
                ifRange.append(value)
            }
        case 13:
            if ASCII.fieldName(name, equals: "if-none-match") { ifNoneMatch.append(value) }
        case 17:
            if ASCII.fieldName(name, equals: "if-modified-since") { ifModifiedSince.append(value) }
        case 19:
            if ASCII.fieldName(name, equals: "if-unmodified-since") { ifUnmodifiedSince.append(value) }
        default:
            return
        }
    }

    /// True when none of the six fields is present: the plain 200 path.
    package var isUnconditional: Bool {
        ifMatch.isEmpty && ifNoneMatch.isEmpty && ifModifiedSince.isEmpty && ifUnmodifiedSince.isEmpty
            && ifRange.isEmpty && range.isEmpty
    }
}

extension Array where Element == String {
    /// The value of a singleton field, or nil when it is absent or appears more than once: RFC 9110 §5.3
    /// makes a repeated singleton field invalid, and Depot ignores invalid conditional fields.
    var singleValue: String? { count == 1 ? self[0] : nil }
}

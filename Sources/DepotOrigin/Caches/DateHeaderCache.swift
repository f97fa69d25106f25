import DepotHTTP

/// The `Date` header value (RFC 9110 §6.6.1), formatted at most once per second.
struct DateHeaderCache {
    /// The second the value is for.
    private(set) var second: Int64 = -1
    private var text = ""

    /// The IMF-fixdate for `now`.
    mutating func value(now: Int64) -> String {
        if now != second {
            second = now
            text = HTTPDate.format(now)
        }
        return text
    }
}

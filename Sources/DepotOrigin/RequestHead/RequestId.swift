/// The id that names one request in logs, in the `X-Request-Id` answer field and in error bodies.
///
/// A client's (or a proxy's) `X-Request-Id` is kept when it is 1 to 128 characters of letters, digits and
/// `-_.:+/=@`, so that it can be followed across systems; anything else is replaced by a fresh id, so nothing a
/// client sends reaches a log line or a header unchecked.
package enum RequestId {
    /// The longest id taken from a request.
    package static let maximumLength = 128

    /// `candidate` when it is a valid id, else nil.
    package static func accepted(_ candidate: String?) -> String? {
        guard let candidate, !candidate.isEmpty, candidate.utf8.count <= maximumLength,
            candidate.utf8.allSatisfy(isAllowed)
        else { return nil }
        return candidate
    }

    /// A fresh id: 32 lowercase hex digits from the system's random generator.
    package static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex(generator.next()) + hex(generator.next())
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "+"),
            UInt8(ascii: "/"), UInt8(ascii: "="), UInt8(ascii: "@"):
            true
        default:
            false
        }
    }
}

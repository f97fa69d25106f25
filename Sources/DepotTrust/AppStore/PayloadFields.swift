/// Reads typed fields out of a decoded App Store payload.
///
/// Lenient where Apple's own libraries are (unknown keys are ignored, numbers may arrive as integers,
/// floating-point values with no fraction, or digit strings; ids may arrive as numbers) and strict where
/// a wrong shape could change a decision: a present field of the wrong type is an error, not a nil.
struct PayloadFields {
    /// The payload object.
    let object: [String: JSONValue]
    /// What the payload is, for messages ("transaction", "renewal info", "notification").
    let kind: String

    func string(_ key: String) throws(AppStoreVerificationError) -> String {
        guard let value = try optionalString(key) else { throw missing(key) }
        return value
    }

    func optionalString(_ key: String) throws(AppStoreVerificationError) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        case .integer(let value)?: return String(value)
        case .number(let value)?:
            guard let integer = Self.exactInteger(value) else { throw wrongShape(key, "a string") }
            return String(integer)
        default: throw wrongShape(key, "a string")
        }
    }

    func int64(_ key: String) throws(AppStoreVerificationError) -> Int64 {
        guard let value = try optionalInt64(key) else { throw missing(key) }
        return value
    }

    func optionalInt64(_ key: String) throws(AppStoreVerificationError) -> Int64? {
        switch object[key] {
        case nil, .null?: return nil
        case .integer(let value)?: return value
        case .number(let value)?:
            guard let integer = Self.exactInteger(value) else { throw wrongShape(key, "an integer") }
            return integer
        case .string(let text)?:
            guard let integer = Int64(text) else { throw wrongShape(key, "an integer") }
            return integer
        default: throw wrongShape(key, "an integer")
        }
    }

    /// A date in milliseconds since 1970, required and within ``AppStoreDate/milliseconds``.
    func date(_ key: String) throws(AppStoreVerificationError) -> Int64 {
        guard let value = try optionalDate(key) else { throw missing(key) }
        return value
    }

    /// A date in milliseconds since 1970 when present: refused outside ``AppStoreDate/milliseconds`` (no App
    /// Store date lies there, and every later sum or conversion of one then fits `Int64`).
    func optionalDate(_ key: String) throws(AppStoreVerificationError) -> Int64? {
        guard let value = try optionalInt64(key) else { return nil }
        guard AppStoreDate.milliseconds.contains(value) else { throw wrongShape(key, AppStoreDate.rule) }
        return value
    }

    /// A count when present: refused outside `range`.
    func optionalCount(_ key: String, in range: ClosedRange<Int>) throws(AppStoreVerificationError) -> Int? {
        guard let value = try optionalInt(key) else { return nil }
        guard range.contains(value) else { throw wrongShape(key, "a count from \(range.lowerBound) to \(range.upperBound)") }
        return value
    }

    func optionalInt(_ key: String) throws(AppStoreVerificationError) -> Int? {
        guard let value = try optionalInt64(key) else { return nil }
        guard let int = Int(exactly: value) else { throw wrongShape(key, "an integer") }
        return int
    }

    func optionalBool(_ key: String) throws(AppStoreVerificationError) -> Bool? {
        switch object[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        case .integer(0)?: return false
        case .integer(1)?: return true
        default: throw wrongShape(key, "a boolean")
        }
    }

    func optionalObject(_ key: String) throws(AppStoreVerificationError) -> PayloadFields? {
        switch object[key] {
        case nil, .null?: return nil
        case .object(let value)?: return PayloadFields(object: value, kind: "\(kind) \(key)")
        default: throw wrongShape(key, "an object")
        }
    }

    /// The integer a floating-point value stands for, only where a `Double` names exactly one integer
    /// (|value| ≤ 2^53): past that, `-9223372036854775809` would round to `Int64.min` and be read as a number
    /// the payload never held. Integers beyond 2^53 arrive as `.integer` when they fit `Int64`.
    private static func exactInteger(_ value: Double) -> Int64? {
        guard value.isFinite, value.rounded(.towardZero) == value, value.magnitude <= 9_007_199_254_740_992 else { return nil }
        return Int64(exactly: value)
    }

    private func missing(_ key: String) -> AppStoreVerificationError {
        AppStoreVerificationError(.payloadMalformed, "the \(kind) has no \(key)")
    }

    private func wrongShape(_ key: String, _ expected: String) -> AppStoreVerificationError {
        AppStoreVerificationError(.payloadMalformed, "the \(kind)'s \(key) is not \(expected)")
    }
}

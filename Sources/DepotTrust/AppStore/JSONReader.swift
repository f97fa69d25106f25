/// Reads JSON text (RFC 8259) into a `JSONValue` in one pass over its bytes.
///
/// Signed payloads are read once per request, so this is on the redemption's path: Foundation's `JSONDecoder`
/// decodes an untyped value by trying each type in turn, throwing and discarding an error for each miss. Rules:
/// - The text is one value with optional whitespace around it; anything else is refused (nil).
/// - A number whose value is a whole number that fits in `Int64` is an `.integer` (`12`, and `1e3` or `0.0` as
///   `JSONDecoder` read them); any other number a finite `.number` (one too large for a `Double` is refused).
/// - Strings must be valid UTF-8 without raw control characters; `\u` escapes must pair their surrogates.
/// - An object naming one key twice is refused: a signed payload means one thing only.
/// - Arrays and objects nest at most `maximumDepth` deep.
struct JSONReader {
    /// How deep arrays and objects may nest (as `JSONDecoder` allows).
    static let maximumDepth = 512

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The value `bytes` hold, or nil when they are not exactly one JSON value.
    static func value(of bytes: [UInt8]) -> JSONValue? {
        var reader = JSONReader(bytes)
        guard let value = reader.readValue() else { return nil }
        reader.skipWhitespace()
        // Not a ternary: `nil` there would become `JSONValue.null` (the type is `ExpressibleByNilLiteral`).
        guard reader.index == bytes.count else { return nil }
        return value
    }

    private mutating func readValue() -> JSONValue? {
        skipWhitespace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return readObject()
        case UInt8(ascii: "["): return readArray()
        case UInt8(ascii: "\""): return readString().map(JSONValue.string)
        case UInt8(ascii: "t"): return readLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return readLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return readLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return readNumber()
        default: return nil
        }
    }

    private mutating func readObject() -> JSONValue? {
        guard depth < Self.maximumDepth else { return nil }
        depth += 1
        defer { depth -= 1 }
        index += 1
        var object: [String: JSONValue] = [:]
        skipWhitespace()
        if take(UInt8(ascii: "}")) { return .object(object) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = readString() else { return nil }
            skipWhitespace()
            guard take(UInt8(ascii: ":")), let value = readValue() else { return nil }
            guard object.updateValue(value, forKey: key) == nil else { return nil }
            skipWhitespace()
            if take(UInt8(ascii: ",")) { continue }
            guard take(UInt8(ascii: "}")) else { return nil }
            return .object(object)
        }
    }

    private mutating func readArray() -> JSONValue? {
        guard depth < Self.maximumDepth else { return nil }
        depth += 1
        defer { depth -= 1 }
        index += 1
        var array: [JSONValue] = []
        skipWhitespace()
        if take(UInt8(ascii: "]")) { return .array(array) }
        while true {
            guard let value = readValue() else { return nil }
            array.append(value)
            skipWhitespace()
            if take(UInt8(ascii: ",")) { continue }
            guard take(UInt8(ascii: "]")) else { return nil }
            return .array(array)
        }
    }

    /// A string from its opening quote (at `index`) to its closing one.
    private mutating func readString() -> String? {
        index += 1
        let start = index
        // Most strings hold no escape: their bytes are used as they are.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(validating: bytes[start..<index], as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            index += 1
        }
        var utf8 = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard readEscape(into: &utf8) else { return nil }
            case 0..<0x20:
                return nil
            default:
                utf8.append(byte)
            }
        }
        return nil
    }

    /// The escape after a backslash, appended to `utf8` as UTF-8.
    private mutating func readEscape(into utf8: inout [UInt8]) -> Bool {
        guard index < bytes.count else { return false }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            guard let unit = readHexUnit() else { return false }
            var scalarValue = UInt32(unit)
            if (0xD800...0xDBFF).contains(unit) {
                // A high surrogate must be followed by an escaped low one.
                guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = readHexUnit(),
                    (0xDC00...0xDFFF).contains(low)
                else { return false }
                scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(scalarValue) else { return false }
            // A scalar always encodes; its UTF-8 bytes go straight into the buffer.
            if let encoded = UTF8.encode(scalar) { utf8.append(contentsOf: encoded) }
        default: return false
        }
        return true
    }

    /// Four hexadecimal digits.
    private mutating func readHexUnit() -> UInt16? {
        guard bytes.count - index >= 4 else { return nil }
        var unit: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit << 4 | UInt16(digit)
            index += 1
        }
        return unit
    }

    private mutating func readNumber() -> JSONValue? {
        let start = index
        let negative = take(UInt8(ascii: "-"))
        // The integer part: 0, or a digit 1-9 and more digits.
        guard index < bytes.count, isDigit(bytes[index]) else { return nil }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            skipDigits()
        }
        let integerEnd = index
        var isInteger = true
        if take(UInt8(ascii: ".")) {
            isInteger = false
            guard index < bytes.count, isDigit(bytes[index]) else { return nil }
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { return nil }
            skipDigits()
        }
        if isInteger, let integer = Self.integer(bytes[(negative ? start + 1 : start)..<integerEnd], negative: negative) {
            return .integer(integer)
        }
        guard let number = Double(String(decoding: bytes[start..<index], as: UTF8.self)), number.isFinite else { return nil }
        // A whole number written with a fraction or an exponent (`1e3`, `0.0`) is an integer, as JSONDecoder read it.
        // Digits alone that overflow `Int64` stay a number.
        if !isInteger, number == number.rounded(.towardZero), let integer = Int64(exactly: number) { return .integer(integer) }
        return .number(number)
    }

    /// The digits as an `Int64`, or nil when it does not fit (overflow-checked: the digits are input).
    private static func integer(_ digits: ArraySlice<UInt8>, negative: Bool) -> Int64? {
        var value: Int64 = 0
        for byte in digits {
            let digit = Int64(byte - UInt8(ascii: "0"))
            let (shifted, overflowShift) = value.multipliedReportingOverflow(by: 10)
            // Accumulated as a negative number, so that Int64.min fits.
            let (next, overflowAdd) = shifted.subtractingReportingOverflow(digit)
            guard !overflowShift, !overflowAdd else { return nil }
            value = next
        }
        if negative { return value }
        let (positive, overflow) = Int64(0).subtractingReportingOverflow(value)
        return overflow ? nil : positive
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    private mutating func readLiteral(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return nil }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return nil }
        index += count
        return value
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Moves past `byte` when it is next.
    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }
}

/// The numbers a hostile peer writes into a numeric field, and the ways it may spell them, for the tables that
/// walk every parser of untrusted numbers: 0, ±1, the 32-bit edges, `Int64.max`, `Int.max`, `Int64.min`,
/// `UInt64.max` and one past each edge, each also with a leading `+`, with leading zeros, and padded with zeros
/// past 20 digits, plus numbers of 20 and more digits.
package enum ExtremeNumbers {
    /// The values, in decimal.
    package static let values: [String] = [
        "0", "1", "-1", "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295", "4294967296",
        String(Int64.max), String(Int.max), "9223372036854775808", String(Int64.min), "-9223372036854775809",
        String(UInt64.max), "18446744073709551616", "99999999999999999999", "123456789012345678901234567890",
    ]

    /// Every value as written, with a leading `+`, with two leading zeros, and zero-padded to 24 digits.
    package static let spellings: [String] = values.flatMap { value -> [String] in
        let negative = value.hasPrefix("-")
        let digits = negative ? String(value.dropFirst()) : value
        let sign = negative ? "-" : ""
        let padded = String(repeating: "0", count: max(0, 24 - digits.count)) + digits
        return [value, negative ? "+" + value : "+" + digits, sign + "00" + digits, sign + padded]
    }

    /// The value of a spelling read strictly as an optional sign and at least one digit, when it fits `Int64`.
    package static func int64(_ spelling: String) -> Int64? {
        var digits = Substring(spelling)
        var negative = false
        if let first = digits.first, first == "+" || first == "-" {
            negative = first == "-"
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= "0" && $0 <= "9" }) else { return nil }
        var value: Int64 = 0
        for digit in digits.utf8 {
            let next = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow) = next.partialValue.addingReportingOverflow((negative ? -1 : 1) * Int64(digit - 48))
            guard !next.overflow, !overflow else { return nil }
            value = sum
        }
        return value
    }

    /// The value of a spelling made of digits only (no sign), held at `Int64.max` when it is larger; nil for
    /// anything else.
    package static func saturatingDigits(_ spelling: String) -> Int64? {
        guard !spelling.isEmpty, spelling.allSatisfy({ $0 >= "0" && $0 <= "9" }) else { return nil }
        return int64(spelling) ?? .max
    }

    /// The number of digits once leading zeros are dropped (0 for zero); nil unless `spelling` is digits only.
    package static func significantDigits(_ spelling: String) -> Int? {
        guard !spelling.isEmpty, spelling.allSatisfy({ $0 >= "0" && $0 <= "9" }) else { return nil }
        return spelling.drop { $0 == "0" }.count
    }
}

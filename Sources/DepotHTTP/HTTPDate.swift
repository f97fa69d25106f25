import DepotCore

/// Formats and parses HTTP-date values (RFC 9110 §5.6.7), as used by Last-Modified, If-Modified-Since,
/// If-Unmodified-Since and If-Range.
///
/// Hand-written for the per-request path: no Foundation, no DateFormatter, one string allocation to format
/// and none to parse. Times are whole seconds since 1970-01-01T00:00:00Z.
///
/// Choices made where the RFC leaves room:
/// - HTTP-date is case-sensitive (§5.6.7): `sun, 06 nov 1994 ...` is invalid.
/// - A day name that disagrees with the date (`Mon, 06 Nov 1994`) makes the value invalid: such a value is
///   self-contradictory, and an invalid date only ever makes a condition be ignored.
/// - Years before 1970 and after 9999 are rejected; second `60` (a leap second, allowed by RFC 5322's
///   grammar) is accepted and counts as the first second of the next minute.
/// - RFC 850 two-digit years follow §5.6.7 when `now` is given (a year more than 50 years in the future
///   means the most recent past year with those digits); without `now`, `70`-`99` mean 19xx and `00`-`69`
///   mean 20xx.
package enum HTTPDate {
    /// 9999-12-31T23:59:59Z, the last instant IMF-fixdate can represent.
    package static let latest: Int64 = 253_402_300_799

    /// Formats `secondsSince1970` as an IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    ///
    /// Values outside 1970...9999 are clamped to that span instead of trapping.
    package static func format(_ secondsSince1970: Int64) -> String {
        let seconds = min(max(secondsSince1970, 0), latest)
        let days = seconds / 86_400
        let timeOfDay = Int(seconds % 86_400)
        let date = CivilDate(daysSince1970: days)
        let weekday = Int((days + 4) % 7)  // 1970-01-01 was a Thursday; 0 is Sunday.
        return String(unsafeUninitializedCapacity: 29) { buffer in
            func put(_ index: Int, _ byte: UInt8) { buffer[index] = byte }
            func putName(_ index: Int, _ names: StaticString, _ which: Int) {
                let start = names.utf8Start + which * 3
                for offset in 0..<3 { buffer[index + offset] = start[offset] }
            }
            func putTwo(_ index: Int, _ value: Int) {
                buffer[index] = UInt8(truncatingIfNeeded: 0x30 + value / 10)
                buffer[index + 1] = UInt8(truncatingIfNeeded: 0x30 + value % 10)
            }
            putName(0, dayNames, weekday)
            put(3, UInt8(ascii: ","))
            put(4, ASCII.space)
            putTwo(5, date.day)
            put(7, ASCII.space)
            putName(8, monthNames, date.month - 1)
            put(11, ASCII.space)
            putTwo(12, date.year / 100)
            putTwo(14, date.year % 100)
            put(16, ASCII.space)
            putTwo(17, timeOfDay / 3600)
            put(19, UInt8(ascii: ":"))
            putTwo(20, timeOfDay / 60 % 60)
            put(22, UInt8(ascii: ":"))
            putTwo(23, timeOfDay % 60)
            put(25, ASCII.space)
            put(26, UInt8(ascii: "G"))
            put(27, UInt8(ascii: "M"))
            put(28, UInt8(ascii: "T"))
            return 29
        }
    }

    /// Parses an IMF-fixdate, an RFC 850 date or an asctime date (RFC 9110 §5.6.7); nil if invalid.
    ///
    /// Surrounding OWS is ignored. `now` (seconds since 1970) only matters for RFC 850's two-digit years.
    package static func parse(_ value: some StringProtocol, now: Int64? = nil) -> Int64? {
        withUTF8Bytes(value) { bytes in
            let range = ASCII.trimmingOWS(bytes, 0..<bytes.count)
            return DateParser(bytes: UnsafeBufferPointer(rebasing: bytes[range]), now: now).parse()
        }
    }

    static let dayNames: StaticString = "SunMonTueWedThuFriSat"
    static let monthNames: StaticString = "JanFebMarAprMayJunJulAugSepOctNovDec"
}

// The three HTTP-date layouts of RFC 9110 §5.6.7, parsed by position over UTF-8 bytes:
//   IMF-fixdate  "Sun, 06 Nov 1994 08:49:37 GMT"   (29 bytes)
//   rfc850-date  "Sunday, 06-Nov-94 08:49:37 GMT"  (day-name-l + 24 bytes)
//   asctime-date "Sun Nov  6 08:49:37 1994"        (24 bytes)
import DepotCore

struct DateParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let now: Int64?

    func parse() -> Int64? {
        if bytes.count == 29, bytes[3] == UInt8(ascii: ",") { return parseIMFFixdate() }
        if bytes.count == 24, bytes[3] == ASCII.space { return parseAsctime() }
        return parseRFC850()
    }

    // day-name "," SP date1 SP time-of-day SP GMT, date1 = day SP month SP year
    private func parseIMFFixdate() -> Int64? {
        guard let weekday = name(at: 0, in: HTTPDate.dayNames),
            literal(at: 4, " "), let day = twoDigits(at: 5), literal(at: 7, " "),
            let month = name(at: 8, in: HTTPDate.monthNames), literal(at: 11, " "),
            let high = twoDigits(at: 12), let low = twoDigits(at: 14), literal(at: 16, " "),
            let time = timeOfDay(at: 17), literal(at: 25, " GMT")
        else { return nil }
        return instant(CivilDate(year: high * 100 + low, month: month + 1, day: day), time, weekday)
    }

    // day-name SP date3 SP time-of-day SP year, date3 = month SP ( 2DIGIT / ( SP DIGIT ) )
    private func parseAsctime() -> Int64? {
        guard let weekday = name(at: 0, in: HTTPDate.dayNames),
            let month = name(at: 4, in: HTTPDate.monthNames), literal(at: 7, " "),
            let day = bytes[8] == ASCII.space ? digit(at: 9) : twoDigits(at: 8), literal(at: 10, " "),
            let time = timeOfDay(at: 11), literal(at: 19, " "),
            let high = twoDigits(at: 20), let low = twoDigits(at: 22)
        else { return nil }
        return instant(CivilDate(year: high * 100 + low, month: month + 1, day: day), time, weekday)
    }

    // day-name-l "," SP date2 SP time-of-day SP GMT, date2 = day "-" month "-" 2DIGIT
    private func parseRFC850() -> Int64? {
        var comma = 0
        while comma < bytes.count, comma < 10, bytes[comma] != UInt8(ascii: ",") { comma += 1 }
        guard comma >= 6, comma < 10, bytes.count == comma + 24,
            let weekday = longDayName(length: comma),
            literal(at: comma + 1, " "), let day = twoDigits(at: comma + 2), literal(at: comma + 4, "-"),
            let month = name(at: comma + 5, in: HTTPDate.monthNames), literal(at: comma + 8, "-"),
            let shortYear = twoDigits(at: comma + 9), literal(at: comma + 11, " "),
            let time = timeOfDay(at: comma + 12), literal(at: comma + 20, " GMT")
        else { return nil }
        let year = Self.expandTwoDigitYear(shortYear, now: now)
        return instant(CivilDate(year: year, month: month + 1, day: day), time, weekday)
    }

    /// RFC 9110 §5.6.7: a two-digit year that would be more than 50 years in the future is the most recent
    /// past year with those digits (judged by calendar year).
    static func expandTwoDigitYear(_ shortYear: Int, now: Int64?) -> Int {
        guard let now else { return shortYear >= 70 ? 1900 + shortYear : 2000 + shortYear }
        let currentYear = CivilDate(daysSince1970: min(max(now, 0), HTTPDate.latest) / 86_400).year
        var year = currentYear - currentYear % 100 + shortYear
        if year > currentYear + 50 { year -= 100 } else if year <= currentYear - 50 { year += 100 }
        return year
    }

    private func instant(_ date: CivilDate, _ time: Int, _ weekday: Int) -> Int64? {
        guard (1970...9999).contains(date.year), date.isValid else { return nil }
        let days = date.daysSince1970
        guard Int((days + 4) % 7) == weekday else { return nil }
        return days * 86_400 + Int64(time)
    }

    // time-of-day = hour ":" minute ":" second
    private func timeOfDay(at index: Int) -> Int? {
        guard let hour = twoDigits(at: index), hour < 24, literal(at: index + 2, ":"),
            let minute = twoDigits(at: index + 3), minute < 60, literal(at: index + 5, ":"),
            let second = twoDigits(at: index + 6), second <= 60
        else { return nil }
        return hour * 3600 + minute * 60 + second
    }

    private func digit(at index: Int) -> Int? {
        guard index < bytes.count, ASCII.isDigit(bytes[index]) else { return nil }
        return Int(bytes[index] &- 0x30)
    }

    private func twoDigits(at index: Int) -> Int? {
        guard let tens = digit(at: index), let ones = digit(at: index + 1) else { return nil }
        return tens * 10 + ones
    }

    private func literal(at index: Int, _ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index >= 0, index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
        return true
    }

    /// The index of the three-letter name at `index` within `names` (case-sensitive, §5.6.7).
    private func name(at index: Int, in names: StaticString) -> Int? {
        guard index + 3 <= bytes.count else { return nil }
        let table = names.utf8Start
        for which in 0..<(names.utf8CodeUnitCount / 3) {
            let entry = table + which * 3
            if bytes[index] == entry[0], bytes[index + 1] == entry[1], bytes[index + 2] == entry[2] {
                return which
            }
        }
        return nil
    }

    private static let longDaySuffixes: [StaticString] = ["day", "day", "sday", "nesday", "rsday", "day", "urday"]

    /// day-name-l: "Sunday" ... "Saturday", occupying exactly `length` bytes from the start.
    private func longDayName(length: Int) -> Int? {
        guard let weekday = name(at: 0, in: HTTPDate.dayNames) else { return nil }
        let suffix = Self.longDaySuffixes[weekday]
        guard length == 3 + suffix.utf8CodeUnitCount, literal(at: 3, suffix) else { return nil }
        return weekday
    }
}

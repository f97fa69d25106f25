/// The dates an app receipt writes: IA5Strings of the form `2024-02-23T17:27:16Z` (UTC), or with a numeric offset
/// (`2020-07-22T18:33:15+0100`) as some Xcode receipts do, and optionally fractional seconds before the zone. An
/// empty string is Apple's "no date". Read as milliseconds since 1970.
enum ReceiptDate {
    /// The milliseconds since 1970 of `text`, nil for the empty string; a text of another form, or a date outside
    /// 1970 to 9999 (``AppStoreDate/milliseconds``), fails.
    static func milliseconds(_ text: String) throws(ReceiptFormatError) -> Int64? {
        if text.isEmpty { return nil }
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 40 else { throw ReceiptFormatError("a date is not YYYY-MM-DDTHH:MM:SSZ") }
        func number(_ range: Range<Int>) throws(ReceiptFormatError) -> Int64 {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard byte >= 0x30, byte <= 0x39 else { throw ReceiptFormatError("a date is not YYYY-MM-DDTHH:MM:SSZ") }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        guard bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54, bytes[13] == 0x3A, bytes[16] == 0x3A else {
            throw ReceiptFormatError("a date is not YYYY-MM-DDTHH:MM:SSZ")
        }
        let (year, month, day) = (try number(0..<4), try number(5..<7), try number(8..<10))
        let (hour, minute, second) = (try number(11..<13), try number(14..<16), try number(17..<19))
        var index = 19
        var fraction: Int64 = 0
        if bytes[index] == 0x2E {
            index += 1
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            guard index > start, index - start <= 9 else { throw ReceiptFormatError("a date's fraction of a second is malformed") }
            var digits = try number(start..<min(index, start + 3))
            for _ in 0..<max(0, 3 - (index - start)) { digits *= 10 }
            fraction = digits
        }
        var offsetSeconds: Int64 = 0
        let zone = Array(bytes[index...])
        if zone == [0x5A] {
            offsetSeconds = 0
        } else if zone.count == 5 || zone.count == 6, zone[0] == 0x2B || zone[0] == 0x2D {
            let colon = zone.count == 6
            guard !colon || zone[3] == 0x3A else { throw ReceiptFormatError("a date's zone offset is malformed") }
            let hours = try number((index + 1)..<(index + 3))
            let minutes = try number((index + (colon ? 4 : 3))..<(index + (colon ? 6 : 5)))
            guard hours <= 23, minutes <= 59 else { throw ReceiptFormatError("a date's zone offset is out of range") }
            offsetSeconds = (hours * 3_600 + minutes * 60) * (zone[0] == 0x2B ? 1 : -1)
        } else {
            throw ReceiptFormatError("a date has no zone (Z or a numeric offset)")
        }
        guard (1970...9999).contains(year), (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour <= 23, minute <= 59, second <= 60
        else { throw ReceiptFormatError("a date is out of range") }
        let seconds = daysFromEpoch(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second - offsetSeconds
        let milliseconds = seconds * 1_000 + fraction
        guard AppStoreDate.milliseconds.contains(milliseconds) else { throw ReceiptFormatError("a date is out of range") }
        return milliseconds
    }

    /// Days in `month` of `year` (Gregorian).
    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the date (proleptic Gregorian; years 1970 to 9999, so no overflow).
    private static func daysFromEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = shiftedYear / 400
        let yearOfEra = shiftedYear - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

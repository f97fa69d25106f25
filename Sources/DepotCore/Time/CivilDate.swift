/// A day of the proleptic Gregorian calendar in UTC, converted to and from days since 1970-01-01 (Howard Hinnant's
/// `civil_from_days` and `days_from_civil`): the one calendar behind every time text Depot reads or writes, the
/// RFC 3339 timestamps of the contract (`UTCTimestamp`) and the HTTP dates of the byte path (`HTTPDate`). Times
/// themselves are seconds since 1970 in UTC (`Int64`) everywhere.
public struct CivilDate: Hashable, Sendable {
    /// The year (proleptic Gregorian; 0 is 1 BC).
    public var year: Int
    /// The month, 1 to 12 in a valid date.
    public var month: Int
    /// The day of the month, from 1 in a valid date.
    public var day: Int

    /// The date with these fields, valid or not (see `isValid`).
    @inlinable
    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days after 1970-01-01 (before it when negative).
    @inlinable
    public init(daysSince1970 days: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
    }

    /// Days since 1970-01-01; only meaningful for a valid date.
    @inlinable
    public var daysSince1970: Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Whether the month exists and the day is in it (29 February only in leap years).
    @inlinable
    public var isValid: Bool {
        guard (1...12).contains(month), day >= 1 else { return false }
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return day <= (leap ? 29 : 28)
        case 4, 6, 9, 11:
            return day <= 30
        default:
            return day <= 31
        }
    }
}

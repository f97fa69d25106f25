import DepotCore
import Testing

/// The one calendar: days since 1970 to dates and back, and the RFC 3339 text built on it.
@Suite struct CivilDateTests {
    @Test(arguments: [
        (Int64(0), 1970, 1, 1), (-1, 1969, 12, 31), (59, 1970, 3, 1), (10_957, 2000, 1, 1), (11_016, 2000, 2, 29),
        (20_513, 2026, 3, 1), (-719_468, 0, 3, 1), (2_932_896, 9999, 12, 31),
    ])
    func knownDays(days: Int64, year: Int, month: Int, day: Int) {
        let date = CivilDate(daysSince1970: days)
        #expect(date == CivilDate(year: year, month: month, day: day))
        #expect(date.daysSince1970 == days)
        #expect(date.isValid)
    }

    @Test func everyDayOfFourHundredYearsRoundTripsInOrder() {
        var previous = CivilDate(daysSince1970: -146_098)
        for days in Int64(-146_097)...146_097 {
            let date = CivilDate(daysSince1970: days)
            #expect(date.isValid && date.daysSince1970 == days, "day \(days): \(date)")
            // The next day of the calendar: the next day of the month, or the first of the next month or year.
            let follows =
                (date.year == previous.year && date.month == previous.month && date.day == previous.day + 1)
                || (date.year == previous.year && date.month == previous.month + 1 && date.day == 1)
                || (date.year == previous.year + 1 && date.month == 1 && date.day == 1 && previous.month == 12)
            if !follows {
                Issue.record("\(date) does not follow \(previous)")
                return
            }
            previous = date
        }
    }

    @Test(arguments: [
        (2000, 2, 29, true), (1900, 2, 29, false), (2024, 2, 29, true), (2026, 2, 29, false), (2026, 4, 31, false),
        (2026, 12, 31, true), (2026, 13, 1, false), (2026, 0, 1, false), (2026, 1, 0, false),
    ])
    func validity(year: Int, month: Int, day: Int, valid: Bool) {
        #expect(CivilDate(year: year, month: month, day: day).isValid == valid)
    }

    @Test func timestampsUseTheSameCalendar() {
        #expect(UTCTimestamp.format(0) == "1970-01-01T00:00:00Z")
        #expect(UTCTimestamp.format(-1) == "1969-12-31T23:59:59Z")
        #expect(UTCTimestamp.format(951_782_400) == "2000-02-29T00:00:00Z")
        #expect(UTCTimestamp.parse("2000-02-29T00:00:00Z") == 951_782_400)
        #expect(UTCTimestamp.parse("1900-02-29T00:00:00Z") == nil)
        #expect(UTCTimestamp.parse("2026-03-01T09:00:00.250+00:00") == 1_772_355_600)
    }
}

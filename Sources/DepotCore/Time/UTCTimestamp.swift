/// ISO 8601 timestamps in UTC as the contract writes them (`2026-03-01T09:00:00Z`), parsed and written without
/// the host's calendar, locale or time zone: the one time format of the wire, the ledger's reports and packs.
public enum UTCTimestamp {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|+00:00)` into Unix seconds (a fraction is dropped).
    public static func parse(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 20 else { return nil }
        func digits(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                guard b[i] >= 0x30, b[i] <= 0x39 else { return nil }
                value = value * 10 + Int(b[i] - 0x30)
            }
            return value
        }
        guard let year = digits(0..<4), b[4] == 0x2D, let month = digits(5..<7), b[7] == 0x2D,
            let day = digits(8..<10), b[10] == 0x54 || b[10] == 0x74,
            let hour = digits(11..<13), b[13] == 0x3A, let minute = digits(14..<16), b[16] == 0x3A,
            let second = digits(17..<19)
        else { return nil }
        var i = 19
        if b[i] == 0x2E {  // fraction: at least one digit
            i += 1
            let start = i
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
            guard i > start else { return nil }
        }
        let zone = Array(b[i...])
        guard zone == Array("Z".utf8) || zone == Array("z".utf8) || zone == Array("+00:00".utf8) else { return nil }
        let date = CivilDate(year: year, month: month, day: day)
        guard date.isValid, hour < 24, minute < 60, second < 60 else { return nil }
        return date.daysSince1970 * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// Formats Unix seconds as `YYYY-MM-DDTHH:MM:SSZ`.
    public static func format(_ seconds: Int64) -> String {
        let days = seconds.floorDivided(by: 86_400)
        let rest = Int(seconds - days * 86_400)
        let date = CivilDate(daysSince1970: days)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(date.year, 4))-\(pad(date.month, 2))-\(pad(date.day, 2))T"
            + "\(pad(rest / 3600, 2)):\(pad(rest / 60 % 60, 2)):\(pad(rest % 60, 2))Z"
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let q = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? q - 1 : q
    }
}

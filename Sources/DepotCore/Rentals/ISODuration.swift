/// ISO 8601 durations as Google Play writes a rent option's periods (`P3D`, `PT48H`, `P1W`, `P1DT12H`), read
/// strictly into whole seconds: designators `W`, `D`, then after `T` `H`, `M`, `S`, each at most once and in that
/// order, digits only (no sign, fraction or exponent). Years and months have no fixed length and are refused.
public enum ISODuration {
    /// The longest duration read: 3,650 days. Longer ones are refused rather than carried into time arithmetic.
    public static let maximumSeconds: Int64 = 3_650 * 86_400

    /// Why a duration was refused, for a configuration error.
    public enum Refusal: Error, Sendable, Equatable {
        /// Not an ISO 8601 duration of the accepted form.
        case malformed
        /// A year or month designator: their length in seconds is not fixed.
        case calendarUnit
        /// Zero, or longer than ``ISODuration/maximumSeconds``.
        case outOfRange

        /// What to tell the person who wrote it.
        public var reason: String {
            switch self {
            case .malformed: "must be an ISO 8601 duration such as P3D, PT48H or P1DT12H (weeks, days, hours, minutes, seconds)"
            case .calendarUnit: "names years or months, whose length is not fixed; write days (P30D) instead"
            case .outOfRange: "must be longer than zero and at most 3650 days"
            }
        }
    }

    /// The duration in seconds, or why it is refused.
    public static func seconds(_ text: String) -> Result<Int64, Refusal> {
        let bytes = Array(text.utf8)
        guard bytes.count >= 3, bytes.count <= 64, bytes[0] == UInt8(ascii: "P") else { return .failure(.malformed) }
        // Each designator's place: its order, whether it belongs after `T`, and its seconds.
        let units: [UInt8: (rank: Int, timePart: Bool, seconds: Int64)] = [
            UInt8(ascii: "W"): (0, false, 604_800), UInt8(ascii: "D"): (1, false, 86_400),
            UInt8(ascii: "H"): (2, true, 3_600), UInt8(ascii: "M"): (3, true, 60), UInt8(ascii: "S"): (4, true, 1),
        ]
        var total: Int64 = 0
        var index = 1
        var inTimePart = false
        var lastRank = -1
        var sawUnit = false
        var sawTimeUnit = false
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "T") {
                guard !inTimePart else { return .failure(.malformed) }
                inTimePart = true
                index += 1
                continue
            }
            var value: Int64 = 0
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
                let (plus, overflowPlus) = times.addingReportingOverflow(Int64(bytes[index] - UInt8(ascii: "0")))
                guard !overflowTimes, !overflowPlus, plus <= maximumSeconds else { return .failure(.outOfRange) }
                value = plus
                index += 1
            }
            guard index > start, index < bytes.count else { return .failure(.malformed) }
            let designator = bytes[index]
            index += 1
            if !inTimePart, designator == UInt8(ascii: "Y") || designator == UInt8(ascii: "M") { return .failure(.calendarUnit) }
            guard let unit = units[designator], unit.timePart == inTimePart, unit.rank > lastRank else {
                return .failure(.malformed)
            }
            lastRank = unit.rank
            sawUnit = true
            if inTimePart { sawTimeUnit = true }
            let (part, overflowPart) = value.multipliedReportingOverflow(by: unit.seconds)
            let (sum, overflowSum) = total.addingReportingOverflow(part)
            guard !overflowPart, !overflowSum, sum <= maximumSeconds else { return .failure(.outOfRange) }
            total = sum
        }
        // `P` alone, or a `T` with nothing after it, is no duration.
        guard sawUnit, !inTimePart || sawTimeUnit else { return .failure(.malformed) }
        guard total > 0 else { return .failure(.outOfRange) }
        return .success(total)
    }
}

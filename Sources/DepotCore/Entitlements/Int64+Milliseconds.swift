extension Int64 {
    /// These seconds in milliseconds, held at `Int64.min` or `Int64.max` instead of overflowing, so that a
    /// far-off date or period from configuration cannot trap.
    var secondsAsMilliseconds: Int64 {
        let (product, overflow) = multipliedReportingOverflow(by: 1000)
        guard overflow else { return product }
        return self < 0 ? .min : .max
    }
}

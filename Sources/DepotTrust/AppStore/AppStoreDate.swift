/// The dates App Store payloads carry: milliseconds since 1970-01-01T00:00:00Z.
package enum AppStoreDate {
    /// The dates accepted, 1970-01-01T00:00:00.000Z through 9999-12-31T23:59:59.999Z. A date read from a
    /// payload outside them is refused, so that a sum of a date and a period, or a conversion to seconds or to
    /// `Date`, never meets `Int64`'s edge.
    package static let milliseconds: ClosedRange<Int64> = 0...253_402_300_799_999

    /// The rule, for messages.
    static let rule = "a date in milliseconds from 1970 to 9999"
}

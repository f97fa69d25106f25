import Foundation

/// ISO 8601 timestamps as the contract writes them: `2026-03-01T09:00:00Z`.
public enum ISO8601 {
    /// Formats seconds since 1970 in UTC.
    public static func format(_ seconds: Int64) -> String {
        Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)
    }
}

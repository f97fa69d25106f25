import DepotCore

/// The two forms of a request's time Signature Version 4 uses: `yyyyMMdd'T'HHmmss'Z'` (`X-Amz-Date`) and its first
/// eight characters (the credential scope's date), both in UTC.
package struct SigV4Date: Sendable, Equatable {
    /// `20130524T000000Z`.
    package let timestamp: String
    /// `20130524`.
    package var day: Substring { timestamp.prefix(8) }

    /// The time `seconds` after 1970 (UTC).
    package init(secondsSince1970 seconds: Int64) {
        // UTCTimestamp gives `2013-05-24T00:00:00Z`; SigV4 drops the separators.
        timestamp = UTCTimestamp.format(seconds).filter { $0 != "-" && $0 != ":" }
    }

    /// A time already in the `X-Amz-Date` form; nil for any other text.
    package init?(timestamp: String) {
        let bytes = Array(timestamp.utf8)
        guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z"),
            bytes.enumerated().allSatisfy({ index, byte in index == 8 || index == 15 || (48...57).contains(byte) })
        else { return nil }
        self.timestamp = timestamp
    }
}

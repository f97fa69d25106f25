import Foundation

/// Reads `Upload-Expires` (an IMF-fixdate).
enum HTTPDateParsing {
    static func seconds(_ text: String) -> Int64? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text).map { Int64($0.timeIntervalSince1970) }
    }
}

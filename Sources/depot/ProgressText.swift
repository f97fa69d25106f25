import Foundation

/// The text of transfer progress, the same for every command that moves bytes (`fetch`, `publish`): a bar
/// for a terminal, a plain line otherwise, sizes in binary units and times as m:ss or h:mm:ss.
enum ProgressText {
    /// `name [#####     ] 45% 1.2 MiB/2.7 MiB 3.4 MiB/s 00:01 left`, for a line redrawn in place.
    static func bar(_ name: String, done: Int64, total: Int64, bytesPerSecond: Double?, secondsLeft: Double?) -> String {
        let width = 30
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 0
        let filled = Int(fraction * Double(width))
        let rate = bytesPerSecond.map { "\(bytes(whole($0)))/s" } ?? "--/s"
        let left = secondsLeft.map { duration($0) } ?? "--:--"
        return "\(name) [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
            + "] \(Int(fraction * 100))% \(bytes(done))/\(bytes(total)) \(rate) \(left) left"
    }

    /// `name: 45% (1234 of 5678 bytes), 3.4 MiB/s, 00:01 left`, for logs.
    static func plain(_ name: String, done: Int64, total: Int64, bytesPerSecond: Double?, secondsLeft: Double?) -> String {
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 0
        return "\(name): \(Int(fraction * 100))% (\(done) of \(total) bytes)"
            + (bytesPerSecond.map { ", \(bytes(whole($0)))/s" } ?? "")
            + (secondsLeft.map { ", \(duration($0)) left" } ?? "")
    }

    /// A rate as whole bytes, held within `0...Int64.max` (and 0 when it is not a number).
    static func whole(_ rate: Double) -> Int64 {
        guard rate.isFinite, rate > 0 else { return 0 }
        return rate < 9.2e18 ? Int64(rate) : .max
    }

    /// A size in B, KiB, MiB, GiB or TiB.
    static func bytes(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }

    /// Seconds as mm:ss, or h:mm:ss from an hour on; `--:--` for a time that is negative, not finite or
    /// longer than a million hours (it would not fit an `Int`, and says nothing anyway).
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0, seconds < 3.6e9 else { return "--:--" }
        let total = Int(seconds.rounded(.up))
        return total >= 3600
            ? String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
            : String(format: "%02d:%02d", total / 60, total % 60)
    }
}

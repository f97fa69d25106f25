import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Progress of a transfer on standard error: a bar with the rate and the time left, redrawn in place on a
/// terminal; plain lines (one per tenth of the way) otherwise, so logs stay readable.
final class TransferProgress: @unchecked Sendable {
    private let total: Int64
    private let label: String
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private let started = Date()
    private let startOffset: Int64
    private var lastDraw = Date.distantPast
    private var lastTenth: Int64 = -1
    private let lock = NSLock()

    /// Progress towards `total` bytes, starting at `offset` (a resumed transfer).
    init(label: String, total: Int64, offset: Int64) {
        self.label = label
        self.total = max(total, 1)
        self.startOffset = offset
    }

    /// Reports that `done` bytes of `total` are through.
    func update(_ done: Int64, force: Bool = false) {
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        let elapsed = now.timeIntervalSince(started)
        let rate = elapsed > 0 ? Double(done - startOffset) / elapsed : 0
        let left = rate > 0 ? Double(total - done) / rate : nil
        if isTerminal {
            guard force || now.timeIntervalSince(lastDraw) >= 0.1 || done == total else { return }
            lastDraw = now
            let width = 30
            let filled = Int(Double(width) * Double(done) / Double(total))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            let line = "\r\(label) [\(bar)] \(Self.percent(done, total)) \(Self.bytes(Double(done)))/\(Self.bytes(Double(total))) "
                + "\(Self.bytes(rate))/s \(left.map { Self.duration($0) + " left" } ?? "")   "
            FileHandle.standardError.write(Data(line.utf8))
            if done == total { FileHandle.standardError.write(Data("\n".utf8)) }
        } else {
            let tenth = done * 10 / total
            guard force || tenth > lastTenth else { return }
            lastTenth = tenth
            let line = "\(label): \(Self.percent(done, total)) (\(done) of \(total) bytes), \(Self.bytes(rate))/s"
                + "\(left.map { ", " + Self.duration($0) + " left" } ?? "")\n"
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    static func percent(_ done: Int64, _ total: Int64) -> String { "\(done * 100 / max(total, 1))%" }

    static func bytes(_ value: Double) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = value
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(Int(value)) B" : String(format: "%.1f %@", value, units[unit])
    }

    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        return whole >= 3600
            ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
            : String(format: "%d:%02d", whole / 60, whole % 60)
    }
}

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Progress of a transfer on standard error, in `ProgressText`'s words: the bar redrawn in place (at most
/// ten times a second) on a terminal; a plain line at each tenth of the way otherwise, so logs stay readable.
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
    func update(_ done: Int64) {
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        let elapsed = now.timeIntervalSince(started)
        let rate = elapsed > 0 ? Double(done - startOffset) / elapsed : nil
        let left = rate.flatMap { $0 > 0 ? Double(total - done) / $0 : nil }
        if isTerminal {
            guard now.timeIntervalSince(lastDraw) >= 0.1 || done == total else { return }
            lastDraw = now
            let bar = ProgressText.bar(label, done: done, total: total, bytesPerSecond: rate, secondsLeft: left)
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + bar + (done == total ? "\n" : "")).utf8))
        } else {
            let tenth = done * 10 / total
            guard tenth > lastTenth else { return }
            lastTenth = tenth
            let line = ProgressText.plain(label, done: done, total: total, bytesPerSecond: rate, secondsLeft: left)
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }
}

import DepotClient
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How `depot fetch` shows progress: a bar redrawn in place (percentage, rate, time remaining) when
/// standard error is a terminal, otherwise a plain line at every tenth of the way and at every change of state.
struct FetchOutput: Sendable {
    /// Whether standard error is a terminal.
    let isTerminal = isatty(2) == 1

    /// Writes a line to standard error.
    func line(_ text: String) { Self.error(text) }

    /// Writes `text` and a newline to standard error.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Reports `download`'s updates until it ends.
    func follow(_ download: BundleDownload) async {
        let name = download.download.contentId
        var lastTenth = -1
        var lastState: DownloadState?
        for await update in download.updates() {
            let tenth = Int(update.fractionCompleted * 10)
            if isTerminal {
                if case .active = update.state {
                    FileHandle.standardError.write(Data(("\r\u{1B}[K" + Self.bar(name, update)).utf8))
                }
                if update.state != .active, update.state != lastState {
                    FileHandle.standardError.write(Data(("\r\u{1B}[K" + Self.stateLine(name, update) + "\n").utf8))
                }
            } else if update.state != lastState && update.state != .active {
                line(Self.stateLine(name, update))
            } else if tenth != lastTenth, case .active = update.state {
                line(Self.plainProgress(name, update))
                lastTenth = tenth
            }
            lastState = update.state
        }
    }

    static func stateLine(_ name: String, _ update: DownloadUpdate) -> String {
        switch update.state {
        case .waiting: "\(name): waiting (\(bytes(update.bytesWritten)) of \(bytes(update.expectedLength)) on disk)"
        case .active: plainProgress(name, update)
        case .paused: "\(name): paused at \(bytes(update.bytesWritten))"
        case .finished(let url): "\(name): installed in \(url.path)"
        case .failed(let error): "\(name): failed: \(error.message)"
        case .cancelled: "\(name): cancelled"
        }
    }

    static func plainProgress(_ name: String, _ update: DownloadUpdate) -> String {
        "\(name): \(Int(update.fractionCompleted * 100))% (\(update.bytesWritten) of \(update.expectedLength) bytes)"
            + (update.bytesPerSecond.map { ", \(bytes(Int64($0)))/s" } ?? "")
            + (update.timeRemaining.map { ", \(duration($0)) left" } ?? "")
    }

    static func bar(_ name: String, _ update: DownloadUpdate) -> String {
        let width = 30
        let filled = Int(update.fractionCompleted * Double(width))
        let rate = update.bytesPerSecond.map { "\(bytes(Int64($0)))/s" } ?? "--/s"
        let left = update.timeRemaining.map { duration($0) } ?? "--:--"
        return "\(name) [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
            + "] \(Int(update.fractionCompleted * 100))% \(bytes(update.bytesWritten))/\(bytes(update.expectedLength)) \(rate) \(left) left"
    }

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

    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.up))
        return total >= 3600
            ? String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
            : String(format: "%02d:%02d", total / 60, total % 60)
    }
}

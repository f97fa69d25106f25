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
        ProgressText.plain(
            name, done: update.bytesWritten, total: update.expectedLength, bytesPerSecond: update.bytesPerSecond,
            secondsLeft: update.timeRemaining)
    }

    static func bar(_ name: String, _ update: DownloadUpdate) -> String {
        ProgressText.bar(
            name, done: update.bytesWritten, total: update.expectedLength, bytesPerSecond: update.bytesPerSecond,
            secondsLeft: update.timeRemaining)
    }

    static func bytes(_ count: Int64) -> String { ProgressText.bytes(count) }
}

import Foundation

/// Where one bundle's download stands, modelled on StoreKit's former `SKDownload` states.
public enum DownloadState: Sendable, Equatable {
    /// Not started yet, or between two attempts.
    case waiting
    /// Bytes are arriving (or the bundle is being verified and unpacked).
    case active
    /// Stopped by `pause()`; the partial file is kept and `resume()` continues from it.
    case paused
    /// Downloaded, verified and unpacked into `contentURL`.
    case finished(contentURL: URL)
    /// Stopped for good by the error.
    case failed(DepotClientError)
    /// Stopped by `cancel()`; the partial file was removed.
    case cancelled

    /// Whether no further update follows.
    public var isTerminal: Bool {
        switch self {
        case .finished, .failed, .cancelled: true
        case .waiting, .active, .paused: false
        }
    }
}

/// One report of a download's progress.
public struct DownloadUpdate: Sendable, Equatable {
    /// The state.
    public var state: DownloadState
    /// Bytes of the bundle on disk so far (including those kept from an earlier attempt or run).
    public var bytesWritten: Int64
    /// The bundle's size.
    public var expectedLength: Int64
    /// Bytes per second over the last few seconds; nil until it can be judged.
    public var bytesPerSecond: Double?
    /// Seconds left at that rate; nil when unknown.
    public var timeRemaining: Double?

    /// Bytes written as a fraction of the expected length, 0 to 1.
    public var fractionCompleted: Double {
        expectedLength > 0 ? min(1, Double(bytesWritten) / Double(expectedLength)) : 0
    }
}

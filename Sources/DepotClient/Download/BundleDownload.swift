import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One bundle on its way into place: downloaded into a partial file (resumed with `Range` and `If-Range`
/// after a broken connection or a restart), verified against its sha256 digest, unpacked into a scratch
/// folder and renamed into `destination`. The app side of what StoreKit's `SKDownload` was.
///
/// `run()` does the work; `updates()` reports it as an `AsyncSequence` of `DownloadUpdate`s; `pause()`,
/// `resume()` and `cancel()` may be called from anywhere while it runs. A grant that expires on the way is
/// renewed through `renew` (redeeming the transaction again) and the download continues where it was.
public final class BundleDownload: @unchecked Sendable {
    /// Gives a fresh offer of the same bundle (a new grant) when the server says the grant expired.
    public typealias Renewal = @Sendable (Download) async throws(DepotClientError) -> Download

    private struct Control {
        var download: Download
        var paused = false
        var running = false
        var cancelled = false
        var transfer: RangeTransfer?
        var waiter: CheckedContinuation<Void, Never>?
        var rate = RateEstimator()
        var lastReport: ContinuousClock.Instant?
        var lastReportedBytes: Int64 = 0
    }

    /// The folder the content is installed in: `ContentInfo.plist` beside `Contents/`.
    public let destination: URL
    private let client: DepotClient
    private let partial: PartialFile
    private let renew: Renewal?
    private let installer: BundleInstaller
    private let broadcaster: UpdateBroadcaster
    private let started = ContinuousClock.now
    private let lock = NSLock()
    private var control: Control

    /// A download of `download` into `destination` through `client`.
    init(client: DepotClient, download: Download, destination: URL, renew: Renewal?) {
        self.client = client
        self.destination = destination
        self.renew = renew
        partial = PartialFile(destination: destination.path, digest: download.digest)
        installer = BundleInstaller(destination: destination.path)
        control = Control(download: download)
        broadcaster = UpdateBroadcaster(
            initial: DownloadUpdate(
                state: .waiting, bytesWritten: partial.length, expectedLength: download.size, bytesPerSecond: nil,
                timeRemaining: nil))
    }

    /// The bundle as last offered (its URL carries the latest grant).
    public var download: Download { lock.withLock { control.download } }

    /// The updates from now on, starting with the current one, ending after `finished`, `failed` or `cancelled`.
    public func updates() -> AsyncStream<DownloadUpdate> { broadcaster.stream() }

    /// The latest update.
    public var current: DownloadUpdate { broadcaster.current }

    /// Stops the transfer and keeps the bytes so far; `resume()` continues from them.
    public func pause() {
        let transfer = lock.withLock { () -> RangeTransfer? in
            guard !control.cancelled else { return nil }
            control.paused = true
            return control.transfer
        }
        transfer?.stop()
        broadcaster.send {
            $0.state = .paused; $0.bytesPerSecond = nil; $0.timeRemaining = nil
        }
    }

    /// Continues a paused download.
    public func resume() {
        let waiter = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            control.paused = false
            defer { control.waiter = nil }
            return control.waiter
        }
        if let waiter {
            broadcaster.send { $0.state = .waiting }
            waiter.resume()
        }
    }

    /// Stops for good and removes the partial file; `run()` throws a `cancelled` error.
    public func cancel() {
        let (transfer, waiter) = lock.withLock { () -> (RangeTransfer?, CheckedContinuation<Void, Never>?) in
            control.cancelled = true
            control.paused = false
            defer { control.waiter = nil }
            return (control.transfer, control.waiter)
        }
        transfer?.stop()
        waiter?.resume()
    }

    /// Downloads, verifies and installs the bundle; returns the content's folder. On a failure the partial
    /// file is kept when it can be resumed (a broken connection) and removed when it cannot (a wrong digest).
    @discardableResult
    public func run() async throws(DepotClientError) -> URL {
        let alreadyRunning = lock.withLock {
            defer { control.running = true }
            return control.running
        }
        guard !alreadyRunning else {
            throw DepotClientError(.invalidArgument, "the download of \(download.contentId) is already running")
        }
        defer { lock.withLock { control.running = false } }
        do throws(DepotClientError) {
            try Files.createDirectory(destination.deletingLastPathComponent().path)
            try await transfer()
            try checkCancelled()
            broadcaster.send {
                $0.state = .active; $0.bytesPerSecond = nil; $0.timeRemaining = nil
            }
            let offered = download
            do throws(DepotClientError) {
                try BundleVerifier.verify(file: partial.path, digest: offered.digest)
            } catch {
                partial.remove()
                throw error
            }
            try checkCancelled()
            do throws(DepotClientError) {
                try installer.install(bundle: partial.path, download: offered)
            } catch {
                // A bundle that cannot be installed will not become installable: do not keep it for a resume.
                if error.code != .io { partial.remove() }
                throw error
            }
            partial.remove()
            broadcaster.send { $0.state = .finished(contentURL: self.destination) }
            return destination
        } catch {
            if error.code == .cancelled {
                partial.remove()
                broadcaster.send { $0.state = .cancelled }
            } else {
                broadcaster.send { $0.state = .failed(error) }
            }
            throw error
        }
    }

    // MARK: the transfer loop

    /// Requests the bundle until the partial file holds all of it. An attempt that ends without the whole
    /// bundle (a broken connection, a short body, a 416) is retried after a growing pause (`client.retry`);
    /// after `retry.attempts` of them in a row that left the file no longer than it was before them, the
    /// download fails: a `network` error, or the server's own refusal when it kept refusing.
    private func transfer() async throws(DepotClientError) {
        var failuresInRow = 0
        var renewals = 0
        while true {
            try checkCancelled()
            await waitWhilePaused()
            try checkCancelled()
            let offered = download
            let length = partial.length
            if length == offered.size, partial.validator != nil || offered.size == 0 { return }
            if length > offered.size { partial.remove() }
            let before = partial.length
            let transfer = RangeTransfer(partial: partial, expectedLength: offered.size) { [weak self] written in
                self?.progress(written)
            }
            lock.withLock {
                control.transfer = transfer
                control.rate.reset()
            }
            broadcaster.send {
                $0.state = .active; $0.bytesWritten = before
            }
            let outcome = await transfer.run(try client.address(offered.url), configuration: client.session.configuration)
            lock.withLock { control.transfer = nil }
            let failure: DepotClientError
            switch outcome {
            case .complete:
                if partial.length == offered.size { return }
                failure = DepotClientError(
                    .network,
                    "the answers for \(offered.contentId) keep ending before its \(offered.size) bytes (the last ended at \(partial.length))"
                )
            case .interrupted(let reason):
                if lock.withLock({ control.paused || control.cancelled }) { continue }
                failure = DepotClientError(.network, "the download of \(offered.contentId) keeps breaking off: \(reason)")
            case .refused(let error) where error.status == 416:
                // The partial file was removed: starting again may help, a bounded number of times.
                failure = DepotClientError(
                    .server, "the server keeps answering the download of \(offered.contentId) with 416, even from its first byte",
                    status: 416, serverCode: error.serverCode)
            case .refused(let error):
                guard error.isExpiredGrant, let renew, renewals < 3 else { throw error }
                renewals += 1
                let fresh = try await renew(offered)
                guard fresh.digest == offered.digest else {
                    throw DepotClientError(.bundleMismatch, "redeeming again offered another bundle for \(offered.contentId)")
                }
                lock.withLock { control.download = fresh }
                continue
            case .invalid(let error):
                throw error
            }
            if partial.length > before {
                failuresInRow = 0
            } else {
                failuresInRow += 1
                if failuresInRow >= client.retry.attempts { throw failure }
            }
            broadcaster.send {
                $0.state = .waiting; $0.bytesPerSecond = nil; $0.timeRemaining = nil
            }
            try? await Task.sleep(for: .seconds(client.retry.delay(afterFailures: max(1, failuresInRow))))
        }
    }

    /// Reports bytes on disk: after 50 ms or 256 KiB since the last report, and always the last byte (a
    /// connection that stalls leaves the count at most 256 KiB behind the file).
    private func progress(_ written: Int64) {
        let now = ContinuousClock.now
        let expected = lock.withLock { control.download.size }
        let report = lock.withLock { () -> (Double?, Double?)? in
            control.rate.record(bytes: written, at: Self.seconds(now - started))
            if let last = control.lastReport, now - last < .milliseconds(50), written < expected,
                abs(written - control.lastReportedBytes) < 256 << 10
            {
                return nil
            }
            control.lastReport = now
            control.lastReportedBytes = written
            return (control.rate.bytesPerSecond, control.rate.timeRemaining(expected: expected))
        }
        guard let (rate, remaining) = report else { return }
        broadcaster.send { update in
            guard update.state != .paused else { return }
            update.state = .active
            update.bytesWritten = written
            update.bytesPerSecond = rate
            update.timeRemaining = remaining
        }
    }

    private func waitWhilePaused() async {
        while lock.withLock({ control.paused && !control.cancelled }) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = lock.withLock { () -> Bool in
                    guard control.paused && !control.cancelled else { return true }
                    control.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }

    private func checkCancelled() throws(DepotClientError) {
        if lock.withLock({ control.cancelled }) || Task.isCancelled {
            throw DepotClientError(.cancelled, "the download of \(download.contentId) was cancelled")
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

import DepotHTTP
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How one request for a bundle ended.
enum TransferOutcome: Sendable {
    /// The answer's body arrived whole and was appended to the partial file.
    case complete
    /// The connection broke or the request was stopped; the bytes received so far are on disk.
    case interrupted(String)
    /// The server answered with an error status.
    case refused(DepotClientError)
    /// The answer broke the protocol, or writing failed; nothing more should be tried with it.
    case invalid(DepotClientError)
}

/// One `GET` of a bundle, streamed into its partial file as it arrives (a data task with a delegate: on
/// Linux URLSession has no `bytes(for:)`).
///
/// With bytes on disk it sends `Range: bytes=N-` and `If-Range` with their validator (RFC 9110 §13.1.5):
/// a 206 continues the file, after checking that its `Content-Range` starts at N; a 200 means the bundle
/// behind the address is not the one the bytes came from, so the file starts again from zero instead of
/// splicing two representations.
final class RangeTransfer: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct State {
        var handle: FileHandle?
        var written: Int64 = 0
        var status = 0
        var errorBody = Data()
        var failure: DepotClientError?
        var continuation: CheckedContinuation<TransferOutcome, Never>?
        var task: URLSessionDataTask?
        var stopped = false
    }

    private let partial: PartialFile
    private let expectedLength: Int64
    private let onProgress: @Sendable (Int64) -> Void
    private let lock = NSLock()
    private var state = State()

    /// A transfer into `partial` of a bundle of `expectedLength` bytes; `onProgress` hears the bytes on disk.
    init(partial: PartialFile, expectedLength: Int64, onProgress: @escaping @Sendable (Int64) -> Void) {
        self.partial = partial
        self.expectedLength = expectedLength
        self.onProgress = onProgress
    }

    /// Requests `url` with `configuration`, continuing the partial file when it has bytes and a validator.
    func run(_ url: URL, configuration: URLSessionConfiguration) async -> TransferOutcome {
        var request = URLRequest(url: url)
        request.cachePolicy = .reloadIgnoringLocalCacheData
        let offset = partial.length
        if offset > 0, let validator = partial.validator {
            request.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range")
            request.setValue(validator, forHTTPHeaderField: "If-Range")
        }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let task = session.dataTask(with: request)
                let stopped = lock.withLock {
                    state.continuation = continuation
                    state.task = task
                    state.written = offset
                    return state.stopped
                }
                if stopped {
                    finish(.interrupted("the download was stopped"))
                } else {
                    task.resume()
                }
            }
        } onCancel: {
            stop()
        }
    }

    /// Stops the request; `run` returns `.interrupted` with what was written kept.
    func stop() {
        let task = lock.withLock {
            state.stopped = true
            return state.task
        }
        task?.cancel()
    }

    // MARK: URLSessionDataDelegate

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse else {
            fail(DepotClientError(.badResponse, "the answer for the bundle is not HTTP"))
            return completionHandler(.cancel)
        }
        do throws(DepotClientError) {
            let written = try accept(http)
            lock.withLock { state.written = written }
            onProgress(written)
            completionHandler(.allow)
        } catch {
            fail(error)
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let (handle, written) = lock.withLock { () -> (FileHandle?, Int64) in
            if state.handle == nil, state.errorBody.count < 65_536 { state.errorBody.append(data) }
            return (state.handle, state.written)
        }
        guard let handle else { return }
        guard written + Int64(data.count) <= expectedLength else {
            fail(DepotClientError(.badResponse, "the server sent more bytes than the bundle's size of \(expectedLength)"))
            dataTask.cancel()
            return
        }
        do {
            try handle.write(contentsOf: data)
        } catch {
            fail(DepotClientError(.io, "cannot write \(partial.path): \(error.localizedDescription)"))
            dataTask.cancel()
            return
        }
        let total = lock.withLock {
            state.written += Int64(data.count)
            return state.written
        }
        onProgress(total)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (failure, status, body) = lock.withLock {
            try? state.handle?.close()
            state.handle = nil
            return (state.failure, state.status, state.errorBody)
        }
        if let failure {
            finish(.invalid(failure))
        } else if let error {
            finish(.interrupted(error.localizedDescription))
        } else if status == 200 || status == 206 {
            finish(.complete)
        } else {
            finish(.refused(DepotClient.failure(status: status, body: body, doing: "the bundle download")))
        }
    }

    // MARK: decisions

    /// Prepares the partial file for the answer `http`; returns the bytes on disk it continues from.
    /// An error status is let through (its body is kept for the error).
    private func accept(_ http: HTTPURLResponse) throws(DepotClientError) -> Int64 {
        lock.withLock { state.status = http.statusCode }
        switch http.statusCode {
        case 206:
            let offset = partial.length
            guard let field = http.value(forHTTPHeaderField: "Content-Range"), let range = ContentRange(field),
                range.first == offset, range.complete == nil || range.complete == expectedLength
            else {
                partial.remove()
                throw DepotClientError(
                    .badResponse, "the server's partial answer does not continue the \(offset) bytes on disk; they were discarded")
            }
            let handle = try partial.appendingHandle()
            lock.withLock { state.handle = handle }
            return offset
        case 200:
            // A whole answer: either nothing was asked for, or If-Range failed because the bundle changed.
            try partial.restart(validator: Self.strongValidator(http.value(forHTTPHeaderField: "ETag")))
            let handle = try partial.appendingHandle()
            lock.withLock { state.handle = handle }
            return 0
        case 416:
            // The bytes on disk do not fit the bundle: start again.
            partial.remove()
            return 0
        default:
            return partial.length
        }
    }

    /// The ETag when it is strong: If-Range needs a strong validator (RFC 9110 §13.1.5).
    static func strongValidator(_ field: String?) -> String? {
        guard let field, let tag = EntityTag(parsing: field), !tag.isWeak else { return nil }
        return tag.fieldValue
    }

    private func fail(_ error: DepotClientError) {
        lock.withLock { if state.failure == nil { state.failure = error } }
    }

    private func finish(_ outcome: TransferOutcome) {
        let continuation = lock.withLock {
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: outcome)
    }
}

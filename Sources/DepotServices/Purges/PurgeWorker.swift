import Foundation
import Logging
import ServiceLifecycle

/// Sends the queued purges to the purge hook, one at a time and in order, off every request's path.
///
/// A failed attempt (a nonzero exit, a non-2xx answer, a timeout) is logged and retried after a wait that
/// doubles each time (`edge.purge.backoffMilliseconds`, at most a minute), `edge.purge.retries` times; then
/// the purge is given up on with an error line naming its tags. On a graceful shutdown the purges already
/// queued get one attempt each.
package struct PurgeWorker: Service {
    let queue: PurgeQueue
    let settings: PurgeHookSettings
    let sender: any PurgeSender
    let logger: Logger

    /// A worker sending `queue`'s purges with `sender`, which hands them to the hook `settings` names.
    package init(queue: PurgeQueue, settings: PurgeHookSettings, sender: any PurgeSender, logger: Logger) {
        self.queue = queue
        self.settings = settings
        self.sender = sender
        self.logger = logger
    }

    /// Sends purges until the queue finishes; on a graceful shutdown, what is queued gets one attempt each.
    package func run() async {
        await withGracefulShutdownHandler {
            for await purge in queue.purges { await deliver(purge) }
        } onGracefulShutdown: {
            queue.finish()
        }
    }

    /// Sends one purge, retrying as configured.
    package func deliver(_ purge: PurgeRequest) async {
        let body = Self.body(purge)
        let attempts = settings.retries + 1
        for attempt in 1...attempts {
            do {
                try await sender.send(purge, body: body, timeoutSeconds: settings.timeoutSeconds)
                queue.counters.sent()
                logger.debug("purge sent", metadata: ["reason": "\(purge.reason)", "attempt": "\(attempt)"])
                return
            } catch {
                queue.counters.failedAttempt()
                let last = attempt == attempts || queue.isStopping || Task.isCancelled
                if last {
                    queue.counters.abandoned()
                    logger.error(
                        "purge not sent: attempt \(attempt) of \(attempts) failed (\(error.message)); edges keep what \(purge.reason) changed until it expires",
                        metadata: ["tags": "\(purge.tags.joined(separator: " "))"])
                    return
                }
                let wait = settings.delayMilliseconds(beforeRetry: attempt)
                logger.warning(
                    "purge hook failed: attempt \(attempt) of \(attempts) (\(error.message)); trying again in \(wait) ms",
                    metadata: ["reason": "\(purge.reason)"])
                do { try await Task.sleep(for: .milliseconds(wait)) } catch {
                    queue.counters.abandoned()
                    logger.error("purge not sent: the server stopped", metadata: ["tags": "\(purge.tags.joined(separator: " "))"])
                    return
                }
            }
        }
    }

    /// The JSON body, `{"tags": [...], "paths": [...], "reason": "..."}`.
    package static func body(_ purge: PurgeRequest) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings and arrays of strings always encode.
        return Array((try? encoder.encode(purge)) ?? Data("{}".utf8))
    }
}

extension PurgeHookSettings {
    /// The wait before retry `n` (1 for the first retry): `backoffMilliseconds` doubled `n - 1` times, at
    /// most `maximumBackoffMilliseconds`.
    package func delayMilliseconds(beforeRetry n: Int) -> Int {
        let doublings = min(max(n - 1, 0), 20)
        return min(backoffMilliseconds << doublings, Self.maximumBackoffMilliseconds)
    }
}

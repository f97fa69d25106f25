import DepotAPI
import DepotServices
import Metrics

/// What the server's parts report as they work.
extension DepotMetrics {
    /// Who a bundle answer was sent to: an app holding a purchase's grant, or an edge filling its cache.
    package enum BundleAudience: String, Sendable {
        /// A grant for a purchase (`ServedBytesRecorder`'s events).
        case grant
        /// An edge admitted by the shared secret (`EdgeFillCounter`).
        case edge
    }

    /// The kind of bundle a build makes.
    package typealias BuildKind = BundleBuildKind

    /// Counts one routed request answered with `status` after `duration`.
    package func request(route: String, method: String, status: Int, duration: Duration) {
        handles.counter(Name.requests, [("route", route), ("method", method), ("status", String(status))]).increment()
        handles.timer(Name.requestDuration, [("route", route), ("method", method)]).record(duration: duration)
    }

    /// Counts one bundle answer that sent `bytes` body bytes to a grant's holder.
    package func grantDownload(bytes: Int64) {
        grantResponses.increment()
        grantBytes.increment(by: bytes)
    }

    /// Counts one grant answer whose served bytes were dropped, the recorder's queue being full.
    package func servedEventDropped() {
        servedDropCounter.increment()
    }

    /// Counts `count` served ranges left out of one transaction's coverage: over its share of the recorder's queue.
    package func servedRangesOverShare(_ count: Int) {
        guard count > 0 else { return }
        servedShareCounter.increment(by: count)
    }

    /// Counts `count` served ranges the ledger left out, their bundle's coverage holding as many intervals as it keeps.
    package func servedRangesBeyondBound(_ count: Int) {
        guard count > 0 else { return }
        servedBoundCounter.increment(by: count)
    }

    /// Sets how many grant answers' served bytes the recorder found waiting when it last took them.
    package func servedBacklog(_ count: Int) {
        servedBacklogGauge.record(count)
    }

    /// Counts one redeem: `ok`, or the code of the error it was answered with.
    package func redeem(outcome: String) {
        handles.counter(Name.redeems, [("outcome", outcome)]).increment()
    }

    /// Counts one bundle of `version` of `contentId` offered by a redeem or a restore.
    package func versionOffered(contentId: String, version: String) {
        handles.counter(Name.versionOffers, [("content", contentId), ("version", version)]).increment()
    }

    /// Counts one delivery of `version` of `contentId` an app confirmed.
    package func versionDelivered(contentId: String, version: String) {
        handles.counter(Name.versionDeliveries, [("content", contentId), ("version", version)]).increment()
    }

    /// Counts one finish: `ok`, or the code of the error it was answered with.
    package func finish(outcome: String) {
        handles.counter(Name.finishes, [("outcome", outcome)]).increment()
    }

    /// Counts one piece of App Store signed data refused, by the verification error's code.
    package func verificationFailed(code: String) {
        Counter(label: Name.verificationFailures, dimensions: [("code", code)], factory: factory).increment()
    }

    /// Records how long a bundle build took (a build the store already held is quick, and counted too).
    package func bundleBuilt(_ kind: BuildKind, duration: Duration) {
        Metrics.Timer(label: Name.bundleBuild, dimensions: [("kind", kind.rawValue)], factory: factory)
            .record(duration: duration)
    }

    /// Records how long one ledger call took.
    package func ledgerCall(_ operation: String, duration: Duration) {
        handles.timer(Name.ledgerOperation, [("operation", operation)]).record(duration: duration)
    }
}

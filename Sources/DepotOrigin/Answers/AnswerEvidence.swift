import DepotCore
import DepotHTTP
import NIOCore
import NIOHTTP1

/// What a bundle answer leaves behind once sent: the delivery evidence the ledger records for a grant's
/// transaction, and the bytes counted as sent to an edge filling its cache.
enum AnswerEvidence {
    /// The body bytes an answer sends to an edge filling its cache, or nil when it is not such an answer.
    static func edgeFillBytes(_ decision: BundleAnswer, method: HTTPMethod) -> Int64? {
        let isGet = isGET(method)
        switch decision {
        case .complete(let bundle, .edge): return isGet ? bundle.version.size : 0
        case .bytes(let plan, _, .edge): return isGet ? plan.contentLength : 0
        case .range(let range, _, .edge): return isGet ? range.length : 0
        default: return nil
        }
    }

    /// Whether the answer sends bundle bytes: a download, counted in flight until its write completes.
    static func sendsBundleBytes(_ decision: BundleAnswer, method: HTTPMethod) -> Bool {
        guard isGET(method) else { return false }
        switch decision {
        case .error: return false
        case .complete: return true
        case .bytes(let plan, _, _): return plan.body != .none
        case .range: return true
        }
    }

    /// Whether `method` is GET, by its case: `HTTPMethod`'s `==` compares the two methods' names as strings.
    static func isGET(_ method: HTTPMethod) -> Bool {
        if case .GET = method { true } else { false }
    }

    /// The ledger event for a response that sends bundle bytes under a transaction's grant; `client` (the client's
    /// address as text) is read only for such an event.
    static func servedEvent(_ decision: BundleAnswer, client: @autoclosure () -> String, now: Int64) -> ServedBytes? {
        let plan: ResponsePlan
        let bundle: ServedBundle
        let transactionId: String
        switch decision {
        case .error, .complete(_, .edge), .bytes(_, _, .edge), .range(_, _, .edge): return nil
        case .range(let range, let served, .grant(let id, _)):
            guard !id.isEmpty else { return nil }
            return ServedBytes(
                transactionId: id, digest: served.version.digest, ranges: [range.first..<(range.last + 1)],
                client: client(), at: now)
        case .complete(let served, .grant(let id, _)):
            guard !id.isEmpty else { return nil }
            return ServedBytes(
                transactionId: id, digest: served.version.digest, ranges: [0..<served.version.size],
                client: client(), at: now)
        case .bytes(let planned, let served, .grant(let id, _)):
            (plan, bundle, transactionId) = (planned, served, id)
        }
        guard !transactionId.isEmpty else { return nil }
        var ranges: [Range<Int64>] = []
        switch plan.body {
        case .none: return nil
        case .file(let offset, let length): ranges = [offset..<(offset + length)]
        case .segments(let segments):
            for case .file(let offset, let length) in segments { ranges.append(offset..<(offset + length)) }
        }
        return ServedBytes(
            transactionId: transactionId, digest: bundle.version.digest, ranges: ranges,
            client: client(), at: now)
    }
}

import DepotAPI
import DepotCore

/// How large a request head may be (`server.maxRequestTargetBytes`, `server.maxRequestHeadBytes`,
/// `server.maxRequestHeaderFields`): a longer target is answered 414, a larger head 431, and the connection
/// closes after the answer (RFC 9110 §15.5.15, RFC 6585 §5).
package struct RequestHeadLimits: Sendable, Equatable {
    /// Most bytes of a request target.
    package var maxTargetBytes: Int
    /// Most bytes of a whole request head: request line, field lines and the empty line that ends them.
    package var maxHeadBytes: Int
    /// Most field lines in a request head.
    package var maxFields: Int

    /// The defaults: 8 KiB of target, 16 KiB of head, 100 field lines.
    package static let defaults = RequestHeadLimits(maxTargetBytes: 8192, maxHeadBytes: 16384, maxFields: 100)

    /// Creates limits.
    package init(maxTargetBytes: Int, maxHeadBytes: Int, maxFields: Int) {
        self.maxTargetBytes = maxTargetBytes
        self.maxHeadBytes = maxHeadBytes
        self.maxFields = maxFields
    }

    /// The answer to a target over the limit.
    var targetTooLong: DepotError {
        DepotError(
            .uriTooLong, "the request target is longer than this server reads (\(maxTargetBytes) bytes)")
    }

    /// The answer to a head over the limit.
    var headTooLarge: DepotError {
        DepotError(
            .headerFieldsTooLarge,
            "the request's header section is larger than this server reads (\(maxHeadBytes) bytes, \(maxFields) fields)")
    }
}

import DepotOrigin
import Logging

extension RequestId {
    /// The id of the routed request the current task works for, set by `RequestIdMiddleware` around the
    /// route, so that services a route calls log under the same id without being handed a logger.
    @TaskLocal package static var current: String?

    /// The logger metadata key of the request id, the one Hummingbird's own lines use.
    package static let metadataKey = "hb.request.id"
}

extension Logger.MetadataProvider {
    /// Adds the id of the request being served (`RequestId.current`) to every line logged while serving it.
    package static let requestId = Logger.MetadataProvider {
        guard let id = RequestId.current else { return [:] }
        return [RequestId.metadataKey: .string(id)]
    }
}

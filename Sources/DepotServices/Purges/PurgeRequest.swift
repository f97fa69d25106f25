/// One purge: the JSON body the purge hook receives, `{"tags": [...], "paths": [...], "reason": "..."}`.
///
/// `tags` are the purge tags Depot puts in its answers (`edge.purgeTagHeader`) whose answers a change made
/// stale; `paths` are the request paths of the cached answers concerned that an edge can name without a
/// tag index (an nginx cache, which keys by path); `reason` says what happened, for logs.
package struct PurgeRequest: Sendable, Equatable, Encodable {
    /// The purge tags, without duplicates, in a stable order.
    package var tags: [String]
    /// Request paths whose cached answers changed (product lists, bundles).
    package var paths: [String]
    /// What happened: `published`, `rolled-back`, `version-deleted` or `revoked`, with the subject.
    package var reason: String

    /// Creates a purge.
    package init(tags: [String], paths: [String], reason: String) {
        self.tags = tags
        self.paths = paths
        self.reason = reason
    }
}

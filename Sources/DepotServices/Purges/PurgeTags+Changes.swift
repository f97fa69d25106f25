import Crypto
import DepotCore

/// The purges a change calls for: what each event makes stale at an edge.
///
/// A bundle's bytes never change, so no purge is ever needed for a cached bundle to stay correct: the
/// purges name what a change does make stale. A publish or a rollback changes the product lists and which
/// version is current (the `version:` tag of the version made current); deleting a never-published version
/// removes its bundle, which an edge filling with its secret may hold; a revoked purchase turns the grant
/// checks of its grants, which edges keep for `edge.grantCheckCacheSeconds`, from allowed to refused.
extension PurgeTags {
    /// Paths of the product lists.
    package static let productListPaths = ["/products_v1.json", "/v1/products"]

    /// The tag of the grant check answers for a transaction's grants: `transaction:` and 32 hex digits of
    /// SHA-256 over the id, so the tag names the purchase without showing its id, on every instance alike.
    package static func transaction(_ transactionId: String) -> String {
        let digest = SHA256.hash(data: Array(("depot-purge-transaction\n" + transactionId).utf8))
        return "transaction:" + Hex.lowercase(digest.prefix(16))
    }

    /// A version was made current: published, or rolled back to.
    package static func activated(_ version: ContentVersion, rollback: Bool) -> PurgeRequest {
        let versionTag = tags(for: version)[2]
        return PurgeRequest(
            tags: [productLists, versionTag], paths: productListPaths + ["/v1/bundles/" + version.digest.hex],
            reason: (rollback ? "rolled-back " : "published ") + versionTag)
    }

    /// A version never published was deleted (its bundle's path is not known any more: only its tag is sent).
    package static func deleted(contentId: String, version: String) -> PurgeRequest {
        let versionTag = "version:" + encoded(contentId) + "@" + encoded(version)
        return PurgeRequest(tags: [versionTag], paths: [], reason: "version-deleted " + versionTag)
    }

    /// Purchases were revoked (a refund, a revocation, or grants a refunded sibling held), so their grant
    /// checks now refuse.
    package static func revoked(_ transactionIds: some Sequence<String>) -> PurgeRequest {
        let tags = Set(transactionIds.map(transaction)).sorted()
        return PurgeRequest(tags: tags, paths: [], reason: "revoked " + tags.joined(separator: " "))
    }
}

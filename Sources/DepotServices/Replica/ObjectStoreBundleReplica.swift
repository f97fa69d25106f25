import DepotBundles
import DepotCore
import DepotObjectStore

/// Bundles shared through an S3-compatible bucket: each under `bundles/<digest>.zip` (below the settings' prefix),
/// written once (a conditional write; the second writer finds it there) and read whole into a local file.
package struct ObjectStoreBundleReplica: BundleReplica {
    let client: ObjectStoreClient

    /// Bundles in `client`'s bucket.
    package init(client: ObjectStoreClient) {
        self.client = client
    }

    /// The object key of a bundle.
    package static func key(_ digest: BundleDigest) -> String {
        "bundles/\(digest.hex).zip"
    }

    package func upload(_ digest: BundleDigest, path: String) async throws {
        _ = try await client.uploadFileIfAbsent(Self.key(digest), path: path, contentType: "application/zip")
    }

    package func download(_ digest: BundleDigest, to path: String) async throws -> Bool {
        try await client.downloadFile(Self.key(digest), to: path) != nil
    }
}

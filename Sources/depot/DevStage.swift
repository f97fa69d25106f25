import DepotSettings
import ArgumentParser
import DepotBundles
import DepotCore
import DepotLedger
import DepotObjectStore
import DepotServer
import DepotServices
import Foundation
import Logging

/// `depot dev stage DIR --product ID`: bundles a pack directory into the data directory's store and records it
/// as a staged version in the ledger, as a finished upload would; publish it with the publisher routes.
struct DevStage: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stage",
        abstract: "Bundle a pack directory and record it as a staged version (last line: content, version, digest)."
    )

    @OptionGroup var ledger: LedgerOptions

    @Argument(help: "The pack directory (pack.json and Contents/).")
    var directory: String

    @Option(help: "The product the version belongs to; pack.json must name it.")
    var product: String

    @Option(help: "The version; pack.json must say the same (default: pack.json's).")
    var version: String?

    func validate() throws {
        if let version, !VersionName.isAcceptable(version) {
            throw ValidationError("--version must be \(VersionName.rule)")
        }
    }

    func run() async throws {
        let configuration = try ledger.common.load()
        let staged = try await ledger.withLedger { ledger in
            // With an object store, the bundle goes to the bucket too, as the server's stagings do.
            let replica = try configuration.objectStore.map { ObjectStoreBundleReplica(client: try ObjectStoreClient(settings: $0)) }
            let store = try LocalBundleStore(
                root: (configuration.dataDirectory as NSString).appendingPathComponent("bundles"), replica: replica)
            let shelf = try PackShelf(root: (configuration.dataDirectory as NSString).appendingPathComponent("packs"))
            let stager = VersionStager(
                ledger: ledger, store: store, shelf: shelf, limits: configuration.bundles.packLimits,
                compressionLevel: configuration.bundles.compressionLevel, clock: { Int64(Date().timeIntervalSince1970) })
            do {
                return try await stager.stage(directory: directory, VersionStager.Request(productId: product, version: version))
            } catch let error as StageError {
                throw ValidationError(error.message)
            }
        }
        print("staged \(staged.content.contentId) \(staged.content.version) \(staged.content.digest)")
    }
}

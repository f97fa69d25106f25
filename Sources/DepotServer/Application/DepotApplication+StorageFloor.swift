import DepotServices
import DepotSettings

extension DepotApplication {
    /// The data directory's free-space floor (`storage.minFreeBytes`), shared by the upload routes, the version jobs
    /// and `/metrics`. One per configuration: each keeps its own one-second reading of the free space.
    static func storageFloor(_ configuration: DepotConfiguration) -> StorageFloor {
        StorageFloor(path: configuration.dataDirectory, minFreeBytes: configuration.minFreeBytes)
    }
}

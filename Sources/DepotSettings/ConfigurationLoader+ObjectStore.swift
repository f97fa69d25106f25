import DepotObjectStore

extension ConfigurationLoader {
    /// `storage.objectStore`: the bucket bundles are shared through. `endpoint`, `region` and `bucket` are required;
    /// the keys come from the file or, as operators expect, from `DEPOT_S3_ACCESS_KEY_ID` and
    /// `DEPOT_S3_SECRET_ACCESS_KEY` (both from the environment when it names the key id, so a file may leave secrets
    /// out; never one from each). `prefix` (default none) is
    /// kept to letters, digits and `-_./`; `pathStyle` defaults to true.
    static func objectStoreSettings(
        _ section: ConfigurationFile.Storage.ObjectStore?, environment: [String: String], deployment: DeploymentEnvironment,
        in file: String
    ) throws(ConfigurationError) -> ObjectStoreSettings? {
        guard let section else { return nil }
        func required(_ value: String?, _ name: String) throws(ConfigurationError) -> String {
            guard let value, !value.isEmpty else { throw ConfigurationError("\(file): storage.objectStore.\(name) is required") }
            return value
        }
        let endpoint = try serviceURL(
            try required(section.endpoint, "endpoint"), setting: "storage.objectStore.endpoint", deployment: deployment,
            in: file)
        // Both keys come from one place: the environment when it names the key id, else the file.
        let fromEnvironment = environment["DEPOT_S3_ACCESS_KEY_ID"]?.isEmpty == false
        let accessKeyId = fromEnvironment ? environment["DEPOT_S3_ACCESS_KEY_ID"] : section.accessKeyId
        let secret = fromEnvironment ? environment["DEPOT_S3_SECRET_ACCESS_KEY"] : section.secretAccessKey
        guard let accessKeyId, !accessKeyId.isEmpty, let secret, !secret.isEmpty else {
            throw ConfigurationError(
                "\(file): storage.objectStore needs accessKeyId and secretAccessKey, in the file or in DEPOT_S3_ACCESS_KEY_ID and DEPOT_S3_SECRET_ACCESS_KEY"
            )
        }
        let prefix = section.prefix ?? ""
        let allowed = prefix.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_./".unicodeScalars.contains(scalar))
        }
        guard allowed, !prefix.hasPrefix("/"), !prefix.contains("..") else {
            throw ConfigurationError("\(file): storage.objectStore.prefix may hold letters, digits and -_./ only, not \"\(prefix)\"")
        }
        let settings = ObjectStoreSettings(
            endpoint: endpoint, region: try required(section.region, "region"), bucket: try required(section.bucket, "bucket"),
            prefix: prefix.isEmpty || prefix.hasSuffix("/") ? prefix : prefix + "/", pathStyle: section.pathStyle ?? true,
            credentials: SigV4Credentials(accessKeyId: accessKeyId, secretAccessKey: secret),
            timeoutSeconds: try ConfigurationError.inRange(
                section.timeoutSeconds ?? 30, 1...3_600, setting: "storage.objectStore.timeoutSeconds", in: file))
        do {
            _ = try ObjectStoreClient(settings: settings)
        } catch {
            throw ConfigurationError("\(file): storage.objectStore: \(error)")
        }
        return settings
    }

    /// `storage.localCacheBytes`: how many bytes of bundle files an instance keeps on its disk, at least 1 MiB. Only
    /// with `storage.objectStore`: without a bucket the data directory holds the only copy, which must not be trimmed.
    static func localCacheBytes(
        _ value: Int64?, objectStore: ObjectStoreSettings?, in file: String
    ) throws(ConfigurationError) -> Int64? {
        guard let value else { return nil }
        guard objectStore != nil else {
            throw ConfigurationError(
                "\(file): storage.localCacheBytes needs storage.objectStore: without a bucket the data directory holds the only copy of each bundle"
            )
        }
        return try ConfigurationError.inRange(value, 1_048_576...Int64.max, setting: "storage.localCacheBytes", in: file)
    }
}

import DepotServices

extension ConfigurationLoader {
    /// The `uploads` section: `maxSize` (default 8 GiB), `expirySeconds` (default 86,400), `reaperIntervalSeconds`
    /// (default 60), each at least 1; the per-publisher quota of live uploads, `maxLivePerPublisher` (1 to 100,000,
    /// default 20) and `maxLiveBytesPerPublisher` (1 byte to 4 EiB, default 64 GiB).
    static func uploadSettings(
        _ uploads: ConfigurationFile.Uploads?, in file: String
    ) throws(ConfigurationError)
        -> UploadSettings
    {
        var settings = UploadSettings(
            maxSize: max(1, uploads?.maxSize ?? 8 << 30),
            expirySeconds: max(1, uploads?.expirySeconds ?? 86_400),
            reaperIntervalSeconds: max(1, uploads?.reaperIntervalSeconds ?? 60))
        if let count = uploads?.maxLivePerPublisher {
            settings.maxLivePerPublisher = try ConfigurationError.inRange(
                count, 1...100_000, setting: "uploads.maxLivePerPublisher", in: file)
        }
        if let bytes = uploads?.maxLiveBytesPerPublisher {
            settings.maxLiveBytesPerPublisher = try ConfigurationError.inRange(
                bytes, 1...(1 << 62), setting: "uploads.maxLiveBytesPerPublisher", in: file)
        }
        return settings
    }
}

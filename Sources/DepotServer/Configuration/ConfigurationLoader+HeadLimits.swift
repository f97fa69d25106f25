extension ConfigurationLoader {
    /// `server.maxRequestTargetBytes` (64 to 1 MiB, default 8 KiB), `server.maxRequestHeadBytes` (1 KiB to 1 MiB,
    /// default 16 KiB) and `server.maxRequestHeaderFields` (8 to 10,000, default 100).
    static func requestHeadLimits(
        _ server: ConfigurationFile.Server?, in file: String
    ) throws(ConfigurationError)
        -> RequestHeadLimits
    {
        let defaults = RequestHeadLimits.defaults
        return RequestHeadLimits(
            maxTargetBytes: try ConfigurationError.inRange(
                server?.maxRequestTargetBytes ?? defaults.maxTargetBytes, 64...1_048_576,
                setting: "server.maxRequestTargetBytes", in: file),
            maxHeadBytes: try ConfigurationError.inRange(
                server?.maxRequestHeadBytes ?? defaults.maxHeadBytes, 1024...1_048_576,
                setting: "server.maxRequestHeadBytes", in: file),
            maxFields: try ConfigurationError.inRange(
                server?.maxRequestHeaderFields ?? defaults.maxFields, 8...10_000,
                setting: "server.maxRequestHeaderFields", in: file))
    }
}

import DepotOrigin
extension ConfigurationLoader {
    /// The `server` section's connection settings: timeouts (idle at least 1 s, default 60; whole request at least
    /// 1 s, default 30; shutdown grace, default 30), trusted proxies, connection limits (`maxConnections` 1 to
    /// 1,000,000, default 10,000; `maxConnectionsPerAddress` the same range, default none: off) and head limits.
    static func httpSettings(
        _ server: ConfigurationFile.Server?, productListCacheControl: String, in file: String
    ) throws(ConfigurationError) -> HTTPSettings {
        HTTPSettings(
            idleTimeoutSeconds: max(1, server?.idleTimeoutSeconds ?? 60),
            requestTimeoutSeconds: max(1, server?.requestTimeoutSeconds ?? 30),
            shutdownGraceSeconds: max(0, server?.shutdownGraceSeconds ?? 30),
            productListCacheControl: productListCacheControl,
            trustedProxies: try TrustedProxies(server?.trustedProxies ?? []),
            maxConnections: try ConfigurationError.inRange(
                server?.maxConnections ?? 10_000, 1...1_000_000, setting: "server.maxConnections", in: file),
            maxConnectionsPerAddress: try server?.maxConnectionsPerAddress.map { limit throws(ConfigurationError) in
                try ConfigurationError.inRange(limit, 1...1_000_000, setting: "server.maxConnectionsPerAddress", in: file)
            },
            requestHeadLimits: try requestHeadLimits(server, in: file))
    }

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

/// Where an S3-compatible bucket is and how to reach it (`storage.objectStore` in `depot.json`).
public struct ObjectStoreSettings: Sendable, Equatable {
    /// The store's base URL (`https://s3.eu-west-1.amazonaws.com`, `http://127.0.0.1:7480`): scheme, host and port,
    /// no path.
    public var endpoint: String
    /// The region in the signature's scope.
    public var region: String
    /// The bucket.
    public var bucket: String
    /// A key prefix every object of this Depot lives under (`depot/`), or empty.
    public var prefix: String
    /// Path-style addressing (`endpoint/bucket/key`, what MinIO and Ceph expect); otherwise the bucket is a host name
    /// (`bucket.endpoint/key`, what AWS prefers).
    public var pathStyle: Bool
    /// The keys requests are signed with.
    public var credentials: SigV4Credentials
    /// Seconds one request may take before it is abandoned (and retried).
    public var timeoutSeconds: Int64
    /// How failed requests are tried again.
    public var retry: ObjectStoreRetryPolicy

    /// Settings.
    public init(
        endpoint: String, region: String, bucket: String, prefix: String = "", pathStyle: Bool = true,
        credentials: SigV4Credentials, timeoutSeconds: Int64 = 30, retry: ObjectStoreRetryPolicy = .init()
    ) {
        self.endpoint = endpoint
        self.region = region
        self.bucket = bucket
        self.prefix = prefix
        self.pathStyle = pathStyle
        self.credentials = credentials
        self.timeoutSeconds = timeoutSeconds
        self.retry = retry
    }
}

/// How a failed request to the object store is tried again: on a transport failure, a 5xx, `SlowDown` or a 429,
/// up to `maxAttempts` in all, waiting `baseDelaySeconds` doubled each time (at most `maxDelaySeconds`), with
/// jitter.
public struct ObjectStoreRetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included (at least 1).
    public var maxAttempts: Int
    /// The first wait.
    public var baseDelaySeconds: Double
    /// The longest wait.
    public var maxDelaySeconds: Double

    /// A policy: 4 attempts from 0.2 s, at most 5 s apart, by default.
    public init(maxAttempts: Int = 4, baseDelaySeconds: Double = 0.2, maxDelaySeconds: Double = 5) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelaySeconds = max(0, baseDelaySeconds)
        self.maxDelaySeconds = max(self.baseDelaySeconds, maxDelaySeconds)
    }

    /// The wait before attempt `attempt + 1` (`attempt` from 1), given a uniform `random` in 0..<1: full jitter
    /// under the doubled delay.
    public func delay(afterAttempt attempt: Int, random: Double) -> Double {
        let doublings = Double(min(max(attempt - 1, 0), 30))
        let ceiling = min(maxDelaySeconds, baseDelaySeconds * pow2(doublings))
        return ceiling / 2 + ceiling / 2 * min(max(random, 0), 1)
    }

    private func pow2(_ exponent: Double) -> Double {
        var value = 1.0
        for _ in 0..<Int(exponent) { value *= 2 }
        return value
    }
}

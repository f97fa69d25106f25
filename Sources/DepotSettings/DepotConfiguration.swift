import DepotObjectStore
import DepotOrigin
import DepotServices
import DepotCore

/// Everything `Config/depot.json` and `Config/products.json` say, after command-line options and
/// environment variables have been applied on top.
package struct DepotConfiguration: Sendable {
    /// Whether this is a production deployment (development keys and roots are then refused).
    package var environment: DeploymentEnvironment
    /// Address to listen on.
    package var host: String
    /// Port to listen on; 0 asks the system for a free one.
    package var port: Int
    /// Directory holding Depot's state: bundles, keys, the ledger.
    package var dataDirectory: String
    /// Directory of content packs imported at start.
    package var contentDirectory: String
    /// The app's bundle identifier.
    package var appBundleId: String
    /// Grant keys and lifetime.
    package var grants: GrantSettings
    /// Bundle building and serving settings.
    package var bundles: BundleSettings
    /// HTTP connection settings.
    package var http: HTTPSettings
    /// TLS on the server's port (`server.tls`); nil: plain HTTP, for a deployment behind a proxy or edge.
    package var tls: TLSSettings? = nil
    /// The products the app sells.
    package var products: [Product]
    /// What a prorated refund does, per product that says (`refunds.prorated` in `products.json`); the others revoke.
    package var proratedRefunds: [String: ProratedRefundPolicy] = [:]
    /// Which App Store signed data is trusted.
    package var appStore: AppStoreSettings
    /// Where the ledger lives: `sqlite:PATH` or a `postgres://` URL.
    package var ledgerURL: String
    /// How long a write to a SQLite ledger waits for another connection's write lock (instances sharing the file)
    /// before it fails as unavailable: `ledger.sqliteBusyTimeoutSeconds`, 1 to 3,600, 10 by default.
    package var ledgerBusyTimeoutSeconds: Int64 = 10
    /// The longest a request waits for one PostgreSQL ledger operation (a connection, its statements and retries)
    /// before it is answered 503 `ledger-unavailable`: `ledger.waitSeconds`, 1 to 300, 5 by default.
    package var ledgerWaitSeconds: Int64 = 5
    /// Thresholds for irregular activity.
    package var irregularActivity: IrregularActivityPolicy
    /// SHA-256 digests (lowercase hex) of the bearer tokens that open `/v1/admin/...`.
    package var adminTokenDigests: [String]
    /// Resumable (tus) uploads.
    package var uploads: UploadSettings
    /// How Depot answers as a CDN's origin.
    package var edge: EdgeSettings = .defaults
    /// How the catalog in the ledger is followed and extended.
    package var catalog: CatalogSettings
    /// How Depot calls the App Store Server API (Finish Transaction after a confirmed delivery); nil: never.
    package var appStoreServerAPI: AppStoreServerAPISettings? = nil
    /// Which Google Play purchases are accepted; nil: none (`googlePlay` is absent).
    package var googlePlay: GooglePlaySettings? = nil
    /// How a restore by account proves its account; nil: restores by account are off (`restore.accountAssertion`).
    package var accountAssertion: AccountAssertionSettings? = nil
    /// The S3-compatible bucket bundles are shared through (`storage.objectStore`); nil keeps them in the data
    /// directory only.
    package var objectStore: ObjectStoreSettings? = nil
    /// The most bytes of bundle files kept on this instance's disk when the object store holds them all
    /// (`storage.localCacheBytes`); nil keeps every bundle this instance has used.
    package var localCacheBytes: Int64? = nil
    /// The fewest free bytes the data directory's filesystem must keep for new uploads and version stagings to start
    /// (`storage.minFreeBytes`); 0 turns the floor off.
    package var minFreeBytes: Int64 = DepotConfiguration.defaultMinFreeBytes
    /// How log lines are written (`log.format`).
    package var logFormat: LogFormat = .text
    /// SHA-256 digests (lowercase hex) of the bearer tokens that open `/metrics` besides the admin tokens.
    package var metricsTokenDigests: [String] = []
    /// The publisher's console at `/console` (`console.enabled`).
    package var console: ConsoleSettings = .defaults
}

extension DepotConfiguration {
    /// `storage.minFreeBytes` when the file does not say: 1 GiB.
    package static let defaultMinFreeBytes: Int64 = 1 << 30
}

/// How often the ledger's catalog revision is polled, and how many earlier versions get deltas.
package struct CatalogSettings: Sendable {
    /// Milliseconds between two polls of the catalog revision (a change made through another instance is
    /// served here within about this long).
    package var pollIntervalMilliseconds: Int
    /// How many of the most recent earlier versions of a content a newly published version gets delta
    /// bundles from.
    package var deltaBaseCount: Int
    /// Seconds after which a version job whose server stopped reporting on it (a stop or a kill) is failed;
    /// a working server reports four times in that span.
    package var versionJobStaleSeconds: Int64 = 60
    /// Seconds a bundle or pack copy must stay unreferenced by any version or delta (a deleted version, a
    /// failed staging) before it is removed; never less than the grant lifetime.
    package var unreferencedGraceSeconds: Int64 = 86_400
    /// Seconds between two looks for unreferenced files.
    package var collectIntervalSeconds: Int64 = 3_600
}

/// Which App Store signed data Depot accepts.
package struct AppStoreSettings: Sendable {
    /// Environments accepted (`Production`, `Sandbox`, `Xcode`, `LocalTesting`).
    package var environments: Set<String>
    /// Whether a production deployment may accept an environment other than `Production` (an explicit
    /// opt-in, logged as a warning at start).
    package var allowNonProductionEnvironments: Bool
    /// DER files of trusted root certificates (Apple Root CA - G3 in production).
    package var trustedRootPaths: [String]
    /// Whether the development root under the data directory is trusted (never in production).
    package var trustDevelopmentRoot: Bool
    /// DER or PEM files of the roots StoreKit 1 app receipts are checked against (Apple Root CA in production);
    /// empty: receipts are accepted only when the development root is trusted, else refused.
    package var receiptRootPaths: [String] = []
    /// Whether an app receipt must come with the device's `identifierForVendor` (`deviceId`), checked against
    /// the receipt's hash; without it, the device id is checked only when the app sends one.
    package var requireReceiptDevice = false

    /// Every App Store environment, accepted by default in development.
    package static let allEnvironments: Set<String> = ["Production", "Sandbox", "Xcode", "LocalTesting"]

    /// The accepted environments other than `Production`, sorted.
    package var nonProductionEnvironments: [String] {
        environments.filter { $0 != "Production" }.sorted()
    }
}

/// Where Depot runs: development accepts development keys; production refuses them.
package enum DeploymentEnvironment: String, Sendable, Codable {
    /// A developer's machine or a test.
    case development
    /// A deployment that sells to real users.
    case production
}

/// Grant signing keys and the lifetime of new grants.
package struct GrantSettings: Sendable {
    /// One configured key.
    package struct Key: Sendable {
        /// The key id carried in grants.
        package var id: String
        /// The secret bytes.
        package var secret: [UInt8]
        /// Whether this is the key shipped with the sample configuration.
        package var isDevelopmentKey: Bool
    }
    /// Every accepted key.
    package var keys: [Key]
    /// The id of the key that signs new grants.
    package var activeKeyId: String
    /// Lifetime of a new grant in seconds.
    package var lifetimeSeconds: Int64
}

/// How bundles are built and served.
package struct BundleSettings: Sendable {
    /// Deflate level 0-9.
    package var compressionLevel: Int
    /// Most ranges accepted in one Range header before it is ignored.
    package var maxRanges: Int
    /// Limits on a content pack.
    package var maxFileCount: Int
    /// Largest single file in a pack, in bytes.
    package var maxFileSize: Int64
    /// Largest pack in bytes.
    package var maxTotalSize: Int64
}

/// HTTP connection settings.
package struct HTTPSettings: Sendable {
    /// Seconds a connection may sit idle between requests before it is closed.
    package var idleTimeoutSeconds: Int64
    /// Seconds a whole request (head and body) has to arrive in, from its first byte; later, it is answered
    /// 408 (when nothing was answered yet) and the connection is closed. A response being written is never cut.
    package var requestTimeoutSeconds: Int64
    /// Seconds a graceful shutdown waits for running downloads before cutting them.
    package var shutdownGraceSeconds: Int64
    /// Cache-Control sent with product lists.
    package var productListCacheControl: String
    /// Proxies whose X-Forwarded-For names the client (irregular-activity accounting); they are held to the
    /// total connection limit only.
    package var trustedProxies: TrustedProxies = .none
    /// Most connections open at once; more are answered 503 and closed.
    package var maxConnections = 10_000
    /// Most connections open at once from one client address; more are answered 429 and closed. Nil (the
    /// default): no limit per address, since many real buyers share one address behind a carrier's or an
    /// office's NAT; only the total holds.
    package var maxConnectionsPerAddress: Int? = nil
    /// How large a request head may be: a longer target is answered 414, a larger head 431.
    package var requestHeadLimits: RequestHeadLimits = .defaults
}

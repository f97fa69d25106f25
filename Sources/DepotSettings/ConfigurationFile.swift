import DepotCore

/// The JSON shape of `Config/depot.json`. Every field is optional; missing ones take the embedded defaults.
struct ConfigurationFile: Decodable {
    struct Server: Decodable {
        var host: String?
        var port: Int?
        var idleTimeoutSeconds: Int64?
        var requestTimeoutSeconds: Int64?
        var shutdownGraceSeconds: Int64?
        /// Addresses or networks (CIDR) of proxies whose X-Forwarded-For names the client.
        var trustedProxies: [String]?
        var maxConnections: Int?
        var maxConnectionsPerAddress: Int?
        /// Longest request target in bytes (longer: 414).
        var maxRequestTargetBytes: Int?
        /// Largest request head in bytes (larger: 431).
        var maxRequestHeadBytes: Int?
        /// Most field lines in a request head (more: 431).
        var maxRequestHeaderFields: Int?
        /// TLS on the server's own port; absent: plain HTTP.
        var tls: TLS?

        /// The `server.tls` section: PEM files, relative to the configuration directory.
        struct TLS: Decodable {
            /// The certificate chain, leaf first.
            var certificateChainPath: String?
            /// The leaf's private key, unencrypted.
            var privateKeyPath: String?
        }
    }
    struct Storage: Decodable {
        struct ObjectStore: Decodable {
            var endpoint: String?
            var region: String?
            var bucket: String?
            var prefix: String?
            var pathStyle: Bool?
            var accessKeyId: String?
            var secretAccessKey: String?
            var timeoutSeconds: Int64?
        }
        var dataDir: String?
        var contentDir: String?
        var objectStore: ObjectStore?
        var localCacheBytes: Int64?
        var minFreeBytes: Int64?
    }
    struct App: Decodable {
        var bundleId: String?
    }
    struct Grants: Decodable {
        struct Key: Decodable {
            var id: String
            /// Base64 (standard alphabet) secret.
            var secret: String
            var development: Bool?
        }
        var activeKeyId: String?
        var lifetimeSeconds: Int64?
        var keys: [Key]?
    }
    struct Bundles: Decodable {
        var compressionLevel: Int?
        var maxRanges: Int?
        var maxFileCount: Int?
        var maxFileSize: Int64?
        var maxTotalSize: Int64?
    }
    struct Caching: Decodable {
        var productListCacheControl: String?
    }
    struct Edge: Decodable {
        var lifetimeHeader: String?
        var lifetimeSeconds: Int64?
        var purgeTagHeader: String?
        var purgeTagSeparator: String?
        var grantCheckCacheSeconds: Int64?
        var fillSecretHeader: String?
        var fillSecrets: [String]?
        var purge: PurgeHook?
    }

    struct PurgeHook: Decodable {
        var command: [String]?
        var url: String?
        var headers: [String: String]?
        var retries: Int?
        var timeoutSeconds: Int?
        var backoffMilliseconds: Int?
        var queueCapacity: Int?
    }

    struct AppStore: Decodable {
        var environments: [String]?
        var allowNonProductionEnvironments: Bool?
        var trustedRoots: [String]?
        var trustDevelopmentRoot: Bool?
        var receiptRoots: [String]?
        var requireReceiptDevice: Bool?
    }
    struct LedgerSection: Decodable {
        var url: String?
        var sqliteBusyTimeoutSeconds: Int64?
        var waitSeconds: Int64?
    }
    struct IrregularActivity: Decodable {
        var windowSeconds: Int64?
        var maxAccountTokens: Int?
        var maxClientAddresses: Int?
        var slowDownSeconds: Int64?
        var restoresPerClient: Int?
        var restoreWindowSeconds: Int64?
    }

    struct Admin: Decodable {
        /// Lowercase hex SHA-256 of each operator token.
        var tokenSHA256: [String]?
    }

    struct LogSection: Decodable {
        /// `text` (default) or `json`.
        var format: String?
    }

    struct MetricsSection: Decodable {
        /// Lowercase hex SHA-256 of each token that opens `/metrics` (admin tokens open it too).
        var tokenSHA256: [String]?
    }

    struct CatalogSection: Decodable {
        var pollIntervalMilliseconds: Int?
        var deltaBaseCount: Int?
        var versionJobStaleSeconds: Int64?
        var unreferencedGraceSeconds: Int64?
        var collectIntervalSeconds: Int64?
    }

    struct AppStoreServerAPI: Decodable {
        struct Outbox: Decodable {
            var pollIntervalMilliseconds: Int?
            var batchSize: Int?
            var leaseSeconds: Int64?
            var baseDelaySeconds: Double?
            var maxDelaySeconds: Double?
            var retryPeriodSeconds: Int64?
        }
        var issuerId: String?
        var keyId: String?
        var privateKeyPath: String?
        var bundleId: String?
        /// Base URL per App Store environment.
        var baseURLs: [String: String]?
        var timeoutSeconds: Int64?
        var outbox: Outbox?
        var notificationHistory: NotificationHistory?
        var sampleContentProvided: Bool?

        struct NotificationHistory: Decodable {
            var intervalSeconds: Int64?
            var overlapSeconds: Int64?
            var lookbackDays: Int64?
        }
    }

    var environment: DeploymentEnvironment?
    var appStoreServerAPI: AppStoreServerAPI?
    var catalog: CatalogSection?
    var admin: Admin?
    var log: LogSection?
    var metrics: MetricsSection?
    var appStore: AppStore?
    var ledger: LedgerSection?
    var irregularActivity: IrregularActivity?
    var server: Server?
    var storage: Storage?
    var app: App?
    var grants: Grants?
    var bundles: Bundles?
    var caching: Caching?
    var edge: Edge?
    var uploads: Uploads?
    var googlePlay: GooglePlay?
    var console: Console?
    var restore: Restore?

    /// The `restore` section.
    struct Restore: Decodable {
        /// How a restore by account proves its account; absent, restores by account are off.
        var accountAssertion: AccountAssertion?

        /// `restore.accountAssertion`: the studio backend's ES256 public keys, the audience, the longest lifetime.
        struct AccountAssertion: Decodable {
            var keys: [Key]?
            var audience: String?
            var maxLifetimeSeconds: Int64?

            /// A key: its `kid` and its PEM file, relative to the configuration directory.
            struct Key: Decodable {
                var id: String?
                var publicKeyFile: String?
            }
        }
    }

    struct GooglePlay: Decodable {
        var packageName: String?
        /// Base64 X.509 SubjectPublicKeyInfo, as Play Console shows it.
        var licenseKeys: [String]?
        /// Play product id → Depot product id, or `{"product", "rental"}` for a product that is rented.
        var products: [String: ProductEntry]?
        /// How Depot calls the Google Play Developer API; absent, it does not.
        var developerAPI: DeveloperAPI?
        /// Whether test purchases (license testers') are accepted; absent, only outside production.
        var acceptTestPurchases: Bool?
        /// Real-time developer notifications: the shared tokens of the push URL.
        var notifications: Notifications?

        struct Notifications: Decodable {
            /// Lowercase hex SHA-256 of each accepted push token.
            var tokenSHA256: [String]?
            /// Pub/Sub's authenticated push: the OIDC token's audience and account.
            var oidc: OIDC?
        }

        struct OIDC: Decodable {
            var audience: String?
            var serviceAccountEmail: String?
            var certificatesURL: String?
        }

        struct DeveloperAPI: Decodable {
            /// The service account's JSON key file.
            var serviceAccountKeyPath: String?
            var baseURL: String?
            var tokenURL: String?
            var timeoutSeconds: Int64?
            var outbox: AppStoreServerAPI.Outbox?
            var voidedPurchases: VoidedPurchases?
            /// Whether the customer could try the content before buying (in answers to refund reviews).
            var sampleContentProvided: Bool?
        }

        struct VoidedPurchases: Decodable {
            var intervalSeconds: Int64?
            var overlapSeconds: Int64?
            var lookbackDays: Int64?
        }
    }

    struct Uploads: Decodable {
        var maxSize: Int64?
        var expirySeconds: Int64?
        var reaperIntervalSeconds: Int64?
        /// Most live (unfinished, unexpired) uploads one publisher may hold.
        var maxLivePerPublisher: Int?
        /// Most bytes one publisher's live uploads may declare together.
        var maxLiveBytesPerPublisher: Int64?
    }
}

/// The JSON shape of `Config/products.json`.
struct ProductsFile: Decodable {
    struct Entry: Decodable {
        var id: String
        var type: ProductType
        var title: String
        var periodDays: Int?
        /// What refunds do: `{"prorated": "revoke" | "keep"}`.
        var refunds: Refunds?
    }
    /// A product's refund policies.
    struct Refunds: Decodable {
        /// What a prorated refund of a product not counted in units does.
        var prorated: ProratedRefundPolicy?
    }
    var products: [Entry]
}

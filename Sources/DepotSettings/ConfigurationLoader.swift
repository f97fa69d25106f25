import DepotServices
import DepotCore
import Foundation

/// Reads `depot.json` and `products.json` from the configuration directory and applies overrides.
///
/// Relative paths in the files and in overrides are taken from the current directory, so the defaults
/// (`Config/`, `content/`, `data/`) work from the repository's root.
package enum ConfigurationLoader {
    /// The configuration directory used when none is given.
    package static let defaultConfigPath = "Config"

    /// Loads the configuration, failing with a message that names the file and field at fault.
    package static func load(
        overrides given: ConfigurationOverrides,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigurationError) -> DepotConfiguration {
        let overrides = try given.fillingGaps(fromEnvironment: environment)
        let (directory, mainFile) = try locate(overrides.configPath ?? defaultConfigPath)
        let file: ConfigurationFile = try decode(ConfigurationFile.self, at: mainFile)
        let productsPath = (directory as NSString).appendingPathComponent("products.json")
        let productsFile: ProductsFile = try decode(ProductsFile.self, at: productsPath)

        let grants = try grantSettings(file.grants, in: mainFile)
        let port = overrides.port ?? file.server?.port ?? 8080
        guard (0...65535).contains(port) else { throw ConfigurationError("\(mainFile): server.port \(port) is out of range") }
        let level = file.bundles?.compressionLevel ?? 6
        guard (0...9).contains(level) else {
            throw ConfigurationError("\(mainFile): bundles.compressionLevel must be 0-9, not \(level)")
        }
        let dataDirectory = overrides.dataDirectory ?? file.storage?.dataDir ?? "data"
        let deployment = file.environment ?? .development
        var configuration = DepotConfiguration(
            environment: deployment,
            host: overrides.host ?? file.server?.host ?? "127.0.0.1",
            port: port,
            dataDirectory: dataDirectory,
            contentDirectory: overrides.contentDirectory ?? file.storage?.contentDir ?? "content",
            appBundleId: file.app?.bundleId ?? "com.example.depot.sample",
            grants: grants,
            bundles: BundleSettings(
                compressionLevel: level,
                maxRanges: max(1, file.bundles?.maxRanges ?? 16),
                maxFileCount: file.bundles?.maxFileCount ?? 10_000,
                maxFileSize: file.bundles?.maxFileSize ?? 2 << 30,
                maxTotalSize: file.bundles?.maxTotalSize ?? 8 << 30
            ),
            http: try httpSettings(
                file.server, productListCacheControl: try productListCacheControl(file.caching, in: mainFile),
                in: mainFile),
            products: try products(productsFile, in: productsPath),
            appStore: AppStoreSettings(
                environments: file.appStore?.environments.map(Set.init)
                    ?? (deployment == .production ? ["Production"] : AppStoreSettings.allEnvironments),
                allowNonProductionEnvironments: file.appStore?.allowNonProductionEnvironments ?? false,
                trustedRootPaths: (file.appStore?.trustedRoots ?? []).map { resolve($0, against: directory) },
                trustDevelopmentRoot: file.appStore?.trustDevelopmentRoot ?? false,
                receiptRootPaths: (file.appStore?.receiptRoots ?? []).map { resolve($0, against: directory) },
                requireReceiptDevice: file.appStore?.requireReceiptDevice ?? false),
            ledgerURL: overrides.databaseURL ?? file.ledger?.url
                ?? "sqlite:" + (dataDirectory as NSString).appendingPathComponent("ledger.sqlite"),
            irregularActivity: IrregularActivityPolicy(
                windowSeconds: max(1, file.irregularActivity?.windowSeconds ?? 86_400),
                maxAccountTokens: max(1, file.irregularActivity?.maxAccountTokens ?? 3),
                maxClientAddresses: max(1, file.irregularActivity?.maxClientAddresses ?? 10),
                slowDownSeconds: max(0, file.irregularActivity?.slowDownSeconds ?? 30),
                restoresPerClient: max(1, file.irregularActivity?.restoresPerClient ?? 20),
                restoreWindowSeconds: max(1, file.irregularActivity?.restoreWindowSeconds ?? 60)),
            adminTokenDigests: try adminDigests(file.admin, in: mainFile),
            uploads: try uploadSettings(file.uploads, in: mainFile),
            catalog: CatalogSettings(
                pollIntervalMilliseconds: min(60_000, max(100, file.catalog?.pollIntervalMilliseconds ?? 1_000)),
                deltaBaseCount: min(20, max(0, file.catalog?.deltaBaseCount ?? 3)),
                versionJobStaleSeconds: min(86_400, max(2, file.catalog?.versionJobStaleSeconds ?? 60)),
                unreferencedGraceSeconds: min(365 * 86_400, max(60, file.catalog?.unreferencedGraceSeconds ?? 86_400)),
                collectIntervalSeconds: min(86_400, max(1, file.catalog?.collectIntervalSeconds ?? 3_600)))
        )
        configuration.proratedRefunds = Dictionary(
            productsFile.products.compactMap { entry in entry.refunds?.prorated.map { (entry.id, $0) } },
            uniquingKeysWith: { first, _ in first })
        configuration.ledgerBusyTimeoutSeconds = try ConfigurationError.inRange(
            file.ledger?.sqliteBusyTimeoutSeconds ?? configuration.ledgerBusyTimeoutSeconds, 1...3_600,
            setting: "ledger.sqliteBusyTimeoutSeconds", in: mainFile)
        configuration.ledgerWaitSeconds = try ConfigurationError.inRange(
            file.ledger?.waitSeconds ?? configuration.ledgerWaitSeconds, 1...300, setting: "ledger.waitSeconds", in: mainFile)
        configuration.edge = try edgeSettings(file.edge, in: mainFile)
        configuration.tls = try tlsSettings(file.server?.tls, directory: directory, in: mainFile)
        configuration.logFormat = try logFormat(file.log, in: mainFile)
        configuration.console = consoleSettings(file.console)
        configuration.metricsTokenDigests = try tokenDigests(file.metrics?.tokenSHA256, setting: "metrics.tokenSHA256", in: mainFile)
        configuration.googlePlay = try googlePlaySettings(
            file.googlePlay, deployment: deployment, directory: directory, in: mainFile)
        configuration.accountAssertion = try accountAssertionSettings(
            file.restore?.accountAssertion,
            defaultAudience: file.app?.bundleId ?? configuration.googlePlay?.packageName ?? configuration.appBundleId,
            directory: directory, in: mainFile)
        configuration.objectStore = try objectStoreSettings(
            file.storage?.objectStore, environment: environment, deployment: deployment, in: mainFile)
        configuration.localCacheBytes = try localCacheBytes(
            file.storage?.localCacheBytes, objectStore: configuration.objectStore, in: mainFile)
        configuration.minFreeBytes = try ConfigurationError.inRange(
            file.storage?.minFreeBytes ?? DepotConfiguration.defaultMinFreeBytes, 0...Int64.max, setting: "storage.minFreeBytes",
            in: mainFile)
        configuration.appStoreServerAPI = try appStoreServerAPISettings(
            file.appStoreServerAPI, appBundleId: configuration.appBundleId, deployment: deployment, directory: directory,
            in: mainFile)
        if configuration.environment == .production, grants.keys.contains(where: \.isDevelopmentKey) {
            throw ConfigurationError("\(mainFile): a production configuration must not accept the development grant key")
        }
        if configuration.environment == .production, configuration.appStore.trustDevelopmentRoot {
            throw ConfigurationError("\(mainFile): a production configuration must not trust the development root")
        }
        let nonProduction = configuration.appStore.nonProductionEnvironments
        if configuration.environment == .production, !nonProduction.isEmpty,
            !configuration.appStore.allowNonProductionEnvironments
        {
            throw ConfigurationError(
                "\(mainFile): a production configuration accepts \(nonProduction.joined(separator: ", ")) transactions; remove them from appStore.environments or set appStore.allowNonProductionEnvironments to true"
            )
        }
        if !configuration.appStore.trustDevelopmentRoot, configuration.appStore.trustedRootPaths.isEmpty {
            throw ConfigurationError("\(mainFile): appStore.trustedRoots must name at least one root certificate")
        }
        return configuration
    }

    /// The product lists' Cache-Control: browsers and apps revalidate after a minute, shared caches (edges)
    /// after a few seconds and may answer from a stale copy while they revalidate (RFC 5861).
    static let defaultProductListCacheControl = "public, max-age=60, s-maxage=5, stale-while-revalidate=30"

    private static func productListCacheControl(_ caching: ConfigurationFile.Caching?, in file: String) throws(ConfigurationError) -> String
    {
        guard let value = caching?.productListCacheControl else { return defaultProductListCacheControl }
        guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw ConfigurationError("\(file): caching.productListCacheControl must be a non-empty Cache-Control value in printable ASCII")
        }
        return value
    }

    private static func adminDigests(_ admin: ConfigurationFile.Admin?, in file: String) throws(ConfigurationError) -> [String] {
        try tokenDigests(admin?.tokenSHA256, setting: "admin.tokenSHA256", in: file)
    }

    /// Token digests as given (lowercase hex SHA-256 each), or the setting named as wrong.
    static func tokenDigests(_ given: [String]?, setting: String, in file: String) throws(ConfigurationError) -> [String] {
        let digests = given ?? []
        for digest in digests where digest.count != 64 || !digest.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) {
            throw ConfigurationError("\(file): \(setting) entries must be 64 lowercase hex digits")
        }
        return digests
    }

    private static func logFormat(_ log: ConfigurationFile.LogSection?, in file: String) throws(ConfigurationError) -> LogFormat {
        guard let name = log?.format else { return .text }
        guard let format = LogFormat(rawValue: name) else {
            throw ConfigurationError("\(file): log.format must be \"text\" or \"json\", not \"\(name)\"")
        }
        return format
    }

    /// A path from a configuration file, taken relative to the configuration directory when relative.
    static func resolve(_ path: String, against directory: String) -> String {
        path.hasPrefix("/") ? path : (directory as NSString).appendingPathComponent(path)
    }

    private static func locate(_ path: String) throws(ConfigurationError) -> (directory: String, file: String) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ConfigurationError("no configuration at \(path): pass --config DIR or set DEPOT_CONFIG")
        }
        if isDirectory.boolValue {
            return (path, (path as NSString).appendingPathComponent("depot.json"))
        }
        return ((path as NSString).deletingLastPathComponent, path)
    }

    private static func decode<Value: Decodable>(
        _ type: Value.Type, at path: String
    ) throws(ConfigurationError)
        -> Value
    {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("cannot read \(path)")
        }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let DecodingError.dataCorrupted(context) {
            throw ConfigurationError("\(path): \(describe(context))")
        } catch let DecodingError.keyNotFound(key, context) {
            throw ConfigurationError("\(path): missing \"\(key.stringValue)\" at \(describe(context))")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw ConfigurationError("\(path): \(describe(context))")
        } catch {
            throw ConfigurationError("\(path): \(error)")
        }
    }

    private static func describe(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map(\.stringValue).joined(separator: ".")
        return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
    }

    private static func grantSettings(
        _ grants: ConfigurationFile.Grants?, in file: String
    ) throws(ConfigurationError)
        -> GrantSettings
    {
        guard let grants, let keys = grants.keys, !keys.isEmpty else {
            throw ConfigurationError("\(file): grants.keys must list at least one key")
        }
        var settings: [GrantSettings.Key] = []
        for key in keys {
            guard let secret = Data(base64Encoded: key.secret), secret.count >= 32 else {
                throw ConfigurationError("\(file): grant key \"\(key.id)\" needs a base64 secret of at least 32 bytes")
            }
            settings.append(.init(id: key.id, secret: Array(secret), isDevelopmentKey: key.development ?? false))
        }
        // At most 30 days: a grant is a short-lived capability, and its expiry is the time of issue plus this.
        let lifetime = try ConfigurationError.inRange(
            grants.lifetimeSeconds ?? 6 * 3600, 1...2_592_000, setting: "grants.lifetimeSeconds", in: file)
        return GrantSettings(
            keys: settings, activeKeyId: grants.activeKeyId ?? settings[0].id, lifetimeSeconds: lifetime)
    }

    private static func products(_ file: ProductsFile, in path: String) throws(ConfigurationError) -> [Product] {
        var seen: Set<String> = []
        var products: [Product] = []
        for entry in file.products {
            guard Identifier.isAcceptable(entry.id) else {
                throw ConfigurationError("\(path): product id \"\(entry.id)\" is not \(Identifier.rule())")
            }
            guard seen.insert(entry.id).inserted else {
                throw ConfigurationError("\(path): product id \"\(entry.id)\" appears twice")
            }
            var period: Int64?
            if entry.type == .nonRenewing {
                guard let days = entry.periodDays, days > 0, days <= 36_500 else {
                    throw ConfigurationError(
                        "\(path): non-renewing product \(entry.id) needs periodDays between 1 and 36500")
                }
                period = Int64(days) * 86_400
            } else if entry.type == .autoRenewable, let days = entry.periodDays {
                // Optional: the period a Google Play subscription entitles when checked offline.
                guard days > 0, days <= 36_500 else {
                    throw ConfigurationError(
                        "\(path): auto-renewable product \(entry.id) has periodDays outside 1-36500")
                }
                period = Int64(days) * 86_400
            }
            products.append(Product(id: entry.id, type: entry.type, title: entry.title, periodSeconds: period))
        }
        return products
    }
}

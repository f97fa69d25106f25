/// Reading and checking the `edge` section of `depot.json`.
extension ConfigurationLoader {
    /// Header fields Depot itself sets on bundles or reads from requests, which an edge setting must not name.
    private static let reservedFieldNames: Set<String> = [
        "authorization", "cache-control", "content-length", "content-range", "content-type", "date", "etag",
        "last-modified", "accept-ranges", "connection", "host", "range", "if-range", "if-match", "if-none-match",
        "if-modified-since", "if-unmodified-since", "transfer-encoding", "set-cookie", "vary",
        "x-original-uri", "www-authenticate",
    ]

    /// The edge settings, with every value checked; the message names the field at fault.
    static func edgeSettings(_ edge: ConfigurationFile.Edge?, in file: String) throws(ConfigurationError) -> EdgeSettings {
        var settings = EdgeSettings.defaults
        guard let edge else { return settings }
        if let name = edge.lifetimeHeader {
            if name.lowercased() == "none" {
                settings.lifetimeHeader = nil
            } else if let header = EdgeSettings.LifetimeHeader.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) {
                settings.lifetimeHeader = header
            } else {
                throw ConfigurationError(
                    "\(file): edge.lifetimeHeader must be \"CDN-Cache-Control\", \"Surrogate-Control\" or \"none\", not \"\(name)\"")
            }
        }
        if let seconds = edge.lifetimeSeconds {
            settings.lifetimeSeconds = try ConfigurationError.inRange(seconds, 1...31_536_000, setting: "edge.lifetimeSeconds", in: file)
        }
        if let name = edge.purgeTagHeader {
            settings.purgeTagHeader = name.lowercased() == "none" ? nil : try fieldName(name, setting: "edge.purgeTagHeader", in: file)
        }
        if let separator = edge.purgeTagSeparator {
            guard separator == " " || separator == "," else {
                throw ConfigurationError(
                    "\(file): edge.purgeTagSeparator must be \" \" (Surrogate-Key) or \",\" (Cache-Tag), not \"\(separator)\"")
            }
            settings.purgeTagSeparator = separator
        }
        if let seconds = edge.grantCheckCacheSeconds {
            settings.grantCheckCacheSeconds = try ConfigurationError.inRange(
                seconds, 0...EdgeSettings.maximumGrantCheckCacheSeconds, setting: "edge.grantCheckCacheSeconds", in: file)
        }
        if let name = edge.fillSecretHeader {
            settings.fillSecretHeader = try fieldName(name, setting: "edge.fillSecretHeader", in: file)
        }
        if let secrets = edge.fillSecrets {
            guard secrets.count <= EdgeSettings.maximumFillSecrets else {
                throw ConfigurationError(
                    "\(file): edge.fillSecrets lists \(secrets.count) secrets; at most \(EdgeSettings.maximumFillSecrets) are accepted at once (the new one and the one being rotated out)"
                )
            }
            for (position, secret) in secrets.enumerated() {
                // Printable ASCII without spaces: the secret travels as a header field value.
                guard secret.utf8.count >= EdgeSettings.minimumFillSecretLength,
                    secret.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
                else {
                    throw ConfigurationError(
                        "\(file): edge.fillSecrets[\(position)] must be at least \(EdgeSettings.minimumFillSecretLength) printable ASCII characters without spaces"
                    )
                }
            }
            guard Set(secrets).count == secrets.count else {
                throw ConfigurationError("\(file): edge.fillSecrets lists the same secret twice")
            }
            settings.fillSecrets = secrets
        }
        if let purge = edge.purge {
            settings.purgeHook = try purgeHookSettings(purge, in: file)
        }
        return settings
    }

    /// A header field name: an RFC 9110 §5.6.2 token that Depot does not already use for something else.
    private static func fieldName(_ name: String, setting: String, in file: String) throws(ConfigurationError) -> String {
        let tokenCharacters = Set("!#$%&'*+-.^_`|~".utf8)
        guard !name.isEmpty, name.utf8.count <= 64,
            name.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || tokenCharacters.contains($0) })
        else {
            throw ConfigurationError("\(file): \(setting) must be a header field name (letters, digits, - and the like), not \"\(name)\"")
        }
        guard !reservedFieldNames.contains(name.lowercased()) else {
            throw ConfigurationError("\(file): \(setting) must not be \(name), a field Depot already uses")
        }
        return name
    }
}

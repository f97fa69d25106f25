import DepotTrust
import Foundation

extension ConfigurationLoader {
    /// The largest public key file read, in bytes.
    static let maximumAccountKeyFileBytes = 64 * 1024

    /// `restore.accountAssertion`: `keys` (at least one `{"id", "publicKeyFile"}`, ids distinct, each file a P-256
    /// public key in PEM, relative to the configuration directory), `audience` (default `defaultAudience`) and
    /// `maxLifetimeSeconds` (1 to 86400, default 600). Nil without the section.
    static func accountAssertionSettings(
        _ section: ConfigurationFile.Restore.AccountAssertion?, defaultAudience: String, directory: String, in file: String
    ) throws(ConfigurationError) -> AccountAssertionSettings? {
        guard let section else { return nil }
        let name = "restore.accountAssertion"
        let entries = section.keys ?? []
        guard !entries.isEmpty else {
            throw ConfigurationError("\(file): \(name).keys must list at least one {\"id\", \"publicKeyFile\"}")
        }
        var keys: [AccountAssertionKey] = []
        for (index, entry) in entries.enumerated() {
            guard let id = entry.id, !id.isEmpty, id.utf8.count <= AccountAssertionKey.maximumIdLength else {
                throw ConfigurationError(
                    "\(file): \(name).keys[\(index)].id must be 1 to \(AccountAssertionKey.maximumIdLength) bytes: the kid of its assertions"
                )
            }
            guard !keys.contains(where: { $0.id == id }) else {
                throw ConfigurationError("\(file): \(name).keys names \"\(id)\" twice")
            }
            guard let path = entry.publicKeyFile, !path.isEmpty else {
                throw ConfigurationError("\(file): \(name).keys[\(index)].publicKeyFile must name a PEM public key file")
            }
            let resolved = resolve(path, against: directory)
            guard let data = FileManager.default.contents(atPath: resolved), data.count <= maximumAccountKeyFileBytes,
                let pem = String(data: data, encoding: .utf8)
            else {
                throw ConfigurationError("\(file): \(name).keys[\(index)].publicKeyFile: cannot read \(resolved) as PEM text")
            }
            do {
                keys.append(try AccountAssertionKey(id: id, pem: pem))
            } catch {
                throw ConfigurationError("\(file): \(name).keys[\(index)].publicKeyFile: \(resolved) \(error.reason)")
            }
        }
        let audience = section.audience ?? defaultAudience
        guard !audience.isEmpty, audience.utf8.count <= 2_048 else {
            throw ConfigurationError("\(file): \(name).audience must be 1 to 2048 bytes")
        }
        let lifetime = try ConfigurationError.inRange(
            section.maxLifetimeSeconds ?? 600, 1...AccountAssertionVerifier.maximumLifetimeSeconds,
            setting: "\(name).maxLifetimeSeconds", in: file)
        return AccountAssertionSettings(keys: keys, audience: audience, maxLifetimeSeconds: lifetime)
    }
}

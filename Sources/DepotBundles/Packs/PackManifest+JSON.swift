import DepotCore
import Foundation

extension PackManifest {
    /// The largest `pack.json` accepted.
    static let maxManifestSize = 64 * 1024

    /// Parses and checks the bytes of `pack.json`.
    package static func parse(json bytes: [UInt8]) throws(PackError) -> PackManifest {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes), options: [])
        } catch {
            throw PackError(.badManifest, "pack.json is not valid JSON")
        }
        guard let fields = object as? [String: Any] else {
            throw PackError(.badManifest, "pack.json must hold a JSON object")
        }

        func string(_ key: String, required: Bool) throws(PackError) -> String? {
            guard let value = fields[key], !(value is NSNull) else {
                if required { throw PackError(.badManifest, "pack.json is missing \"\(key)\"") }
                return nil
            }
            guard let text = value as? String else {
                throw PackError(.badManifest, "pack.json \"\(key)\" must be a string")
            }
            return text
        }
        func identifier(_ key: String, required: Bool) throws(PackError) -> String? {
            guard let text = try string(key, required: required) else { return nil }
            guard !text.isEmpty, text.utf8.count <= 255 else {
                throw PackError(.badManifest, "pack.json \"\(key)\" must be 1 to 255 bytes long")
            }
            guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw PackError(.badManifest, "pack.json \"\(key)\" must not hold control characters")
            }
            return text
        }

        // Product and content ids key ledger rows and URLs and name an app's folders: the one identifier rule.
        func catalogIdentifier(_ key: String, required: Bool) throws(PackError) -> String? {
            guard let text = try string(key, required: required) else { return nil }
            guard Identifier.isAcceptable(text) else {
                throw PackError(.badManifest, "pack.json \"\(key)\" must be \(Identifier.rule())")
            }
            return text
        }

        let productId = try catalogIdentifier("productId", required: true)!
        let version = try identifier("version", required: true)!
        // A version named `.` or `..` (or hidden) could never be published through a URL: refused like such ids.
        guard !version.hasPrefix(".") else {
            throw PackError(.badManifest, "pack.json \"version\" must not start with '.'")
        }
        let contentId = try catalogIdentifier("contentId", required: false)
        let title = try string("title", required: false)
        let published = try string("publishedAt", required: true)!
        guard let publishedAt = UTCTimestamp.parse(published) else {
            throw PackError(
                .badManifest,
                "pack.json \"publishedAt\" must be an ISO 8601 UTC time such as 2026-03-01T09:00:00Z"
            )
        }
        return PackManifest(
            productId: productId, contentId: contentId, version: version, publishedAt: publishedAt, title: title
        )
    }
}

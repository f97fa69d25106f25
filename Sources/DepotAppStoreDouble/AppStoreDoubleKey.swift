import Crypto
import Foundation

/// The development API key the double issues, kept under its data directory (`appstore-double/`): a P-256
/// private key in a `.p8` file as App Store Connect hands them out (PKCS#8 PEM), with its key id and issuer id.
/// Made once; later starts reuse it, so a configuration pointing at it stays valid.
package struct AppStoreDoubleKey: Sendable {
    /// The key id (ten characters, as App Store Connect's).
    package var keyId: String
    /// The issuer id (a UUID, as App Store Connect's).
    package var issuerId: String
    /// Where the `.p8` file is (absolute).
    package var privateKeyPath: String
    /// The private key.
    package var privateKey: P256.Signing.PrivateKey

    /// Why the key could not be made or read.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong, for people.
        package var description: String
    }

    private struct Identity: Codable {
        var keyId: String
        var issuerId: String
    }

    /// Loads the key under `dataDirectory`, making it first when there is none.
    package static func loadOrCreate(dataDirectory: String) throws(Failure) -> AppStoreDoubleKey {
        let directory = URL(fileURLWithPath: dataDirectory).appendingPathComponent("appstore-double").standardizedFileURL.path
        let identityPath = directory + "/identity.json"
        do {
            if let data = FileManager.default.contents(atPath: identityPath) {
                let identity = try JSONDecoder().decode(Identity.self, from: data)
                let path = directory + "/AuthKey_\(identity.keyId).p8"
                let pem = try String(contentsOfFile: path, encoding: .utf8)
                return AppStoreDoubleKey(
                    keyId: identity.keyId, issuerId: identity.issuerId, privateKeyPath: path,
                    privateKey: try P256.Signing.PrivateKey(pemRepresentation: pem))
            }
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
            let keyId = String((0..<10).map { _ in alphabet.randomElement()! })
            let identity = Identity(keyId: keyId, issuerId: UUID().uuidString.lowercased())
            let key = P256.Signing.PrivateKey()
            let path = directory + "/AuthKey_\(keyId).p8"
            // The key first, then the identity that names it: a start cut short leaves no identity without a key.
            try Data(key.pemRepresentation.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
            try JSONEncoder().encode(identity).write(to: URL(fileURLWithPath: identityPath), options: .atomic)
            return AppStoreDoubleKey(keyId: keyId, issuerId: identity.issuerId, privateKeyPath: path, privateKey: key)
        } catch {
            throw Failure(description: "cannot make or read the App Store double's key under \(directory): \(error)")
        }
    }
}

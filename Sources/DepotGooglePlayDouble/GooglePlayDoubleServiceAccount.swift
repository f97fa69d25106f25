import CryptoExtras
import Foundation

/// The service account the double issues: an RSA 2,048-bit key with the identity fields of a Google service
/// account, kept in the data directory as `googleplay-double-service-account.json` in the key file format Google
/// Cloud hands out. Made once; later starts reuse the key, and each start rewrites the file's `token_uri` to
/// point at the running double (`writeKeyFile(tokenURI:)`).
package struct GooglePlayDoubleServiceAccount: Sendable {
    /// The key file's name in the data directory.
    package static let fileName = "googleplay-double-service-account.json"
    /// The project the account belongs to.
    package static let projectId = "depot-double"
    /// The account's email: the `iss` of its assertions.
    package static let clientEmail = "depot-double@depot-double.iam.gserviceaccount.com"

    /// The key id (40 hex digits, as Google's): the `kid` of its assertions.
    package var privateKeyId: String
    /// The account's numeric id.
    package var clientId: String
    /// Where its key file is (absolute), or nil for an account that lives in memory only.
    package var keyFilePath: String?
    /// The private key.
    package var privateKey: _RSA.Signing.PrivateKey

    /// Why the account could not be made, read or written.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong, for people.
        package var description: String
    }

    /// An account with the given key and identity.
    package init(privateKey: _RSA.Signing.PrivateKey, privateKeyId: String, clientId: String, keyFilePath: String? = nil) {
        self.privateKey = privateKey
        self.privateKeyId = privateKeyId
        self.clientId = clientId
        self.keyFilePath = keyFilePath
    }

    /// A new account with a new key and identity, kept at `keyFilePath` once `writeKeyFile` is called.
    package static func generate(keyFilePath: String? = nil) throws(Failure) -> GooglePlayDoubleServiceAccount {
        let key: _RSA.Signing.PrivateKey
        do {
            key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        } catch {
            throw Failure(description: "cannot make an RSA key for the Google Play double: \(error)")
        }
        let hex = Array("0123456789abcdef")
        let keyId = String((0..<40).map { _ in hex.randomElement()! })
        let clientId = String(Int.random(in: 1...9)) + String((0..<20).map { _ in String(Int.random(in: 0...9)) }.joined())
        return GooglePlayDoubleServiceAccount(privateKey: key, privateKeyId: keyId, clientId: clientId, keyFilePath: keyFilePath)
    }

    /// Loads the account kept in `dataDirectory`, making it (and the directory) first when there is none.
    package static func loadOrCreate(dataDirectory: String) throws(Failure) -> GooglePlayDoubleServiceAccount {
        let directory = URL(fileURLWithPath: dataDirectory).standardizedFileURL.path
        let path = directory + "/" + fileName
        guard let data = FileManager.default.contents(atPath: path) else {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw Failure(description: "cannot make the data directory \(directory): \(error)")
            }
            let account = try generate(keyFilePath: path)
            try account.writeKeyFile(tokenURI: "")
            return account
        }
        do {
            let file = try JSONDecoder().decode(KeyFile.self, from: data)
            let key = try _RSA.Signing.PrivateKey(pemRepresentation: file.privateKey)
            return GooglePlayDoubleServiceAccount(
                privateKey: key, privateKeyId: file.privateKeyId, clientId: file.clientId, keyFilePath: path)
        } catch {
            throw Failure(description: "cannot read the Google Play double's service account key file \(path): \(error)")
        }
    }

    /// The key file's text, in Google's service account key file format, with `token_uri` set to `tokenURI`.
    package func keyFileJSON(tokenURI: String) -> String {
        let file = KeyFile(
            type: "service_account", projectId: Self.projectId, privateKeyId: privateKeyId,
            privateKey: privateKey.pkcs8PEMRepresentation, clientEmail: Self.clientEmail, clientId: clientId, tokenURI: tokenURI)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding strings cannot fail.
        let data = (try? encoder.encode(file)) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Writes the key file (readable by its owner only) with `token_uri` set to `tokenURI`; nothing for an
    /// account without a key file path.
    package func writeKeyFile(tokenURI: String) throws(Failure) {
        guard let keyFilePath else { return }
        do {
            try Data(keyFileJSON(tokenURI: tokenURI).utf8).write(to: URL(fileURLWithPath: keyFilePath), options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFilePath)
        } catch {
            throw Failure(description: "cannot write the Google Play double's service account key file \(keyFilePath): \(error)")
        }
    }

    /// The key file's fields, as Google names them.
    private struct KeyFile: Codable {
        var type: String
        var projectId: String
        var privateKeyId: String
        var privateKey: String
        var clientEmail: String
        var clientId: String
        var tokenURI: String?

        enum CodingKeys: String, CodingKey {
            case type
            case projectId = "project_id"
            case privateKeyId = "private_key_id"
            case privateKey = "private_key"
            case clientEmail = "client_email"
            case clientId = "client_id"
            case tokenURI = "token_uri"
        }
    }
}

import Foundation

/// A Google Cloud service account's key file, as Play Console and the Cloud console hand it out (JSON with
/// `type` `service_account`): who Depot signs in as to call the Developer API.
public struct GooglePlayServiceAccount: Sendable, Equatable {
    /// The account's e-mail address: the JWT's issuer.
    public var clientEmail: String
    /// The key's id, sent as the JWT header's `kid`.
    public var privateKeyId: String
    /// The RSA private key, PEM (PKCS#8 `BEGIN PRIVATE KEY`, as Google writes it, or PKCS#1).
    public var privateKeyPEM: String
    /// Where access tokens are obtained (`https://oauth2.googleapis.com/token` for Google's own).
    public var tokenURI: String

    /// Creates an account from its parts.
    public init(clientEmail: String, privateKeyId: String, privateKeyPEM: String, tokenURI: String) {
        self.clientEmail = clientEmail
        self.privateKeyId = privateKeyId
        self.privateKeyPEM = privateKeyPEM
        self.tokenURI = tokenURI
    }

    /// Google's token endpoint.
    public static let googleTokenURI = "https://oauth2.googleapis.com/token"

    /// The account in a key file's bytes; a file that is not a service account's key is a configuration error
    /// saying which field is wrong.
    public init(keyFile data: Data) throws(GooglePlayAPIError) {
        struct KeyFile: Decodable {
            var type: String?
            var client_email: String?
            var private_key_id: String?
            var private_key: String?
            var token_uri: String?
        }
        guard data.count <= 64 * 1024, let file = try? JSONDecoder().decode(KeyFile.self, from: data) else {
            throw GooglePlayAPIError(.configuration("the service account key file is not JSON"))
        }
        guard file.type == nil || file.type == "service_account" else {
            throw GooglePlayAPIError(.configuration("the key file's type is \(file.type ?? ""), not service_account"))
        }
        guard let email = file.client_email, !email.isEmpty else {
            throw GooglePlayAPIError(.configuration("the key file has no client_email"))
        }
        guard let key = file.private_key, key.contains("PRIVATE KEY") else {
            throw GooglePlayAPIError(.configuration("the key file has no private_key in PEM form"))
        }
        self.init(
            clientEmail: email, privateKeyId: file.private_key_id ?? "", privateKeyPEM: key,
            tokenURI: file.token_uri.flatMap { $0.isEmpty ? nil : $0 } ?? Self.googleTokenURI)
    }

    /// The account in the key file at `path`.
    public init(keyFilePath path: String) throws(GooglePlayAPIError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw GooglePlayAPIError(.configuration("the service account key file \(path) cannot be read"))
        }
        try self.init(keyFile: data)
    }
}

/// The key pair a request to an S3-compatible store is signed with (an access key id and its secret), and the
/// session token of temporary credentials, when there is one.
public struct SigV4Credentials: Sendable, Equatable {
    /// The access key id, sent in the clear in the credential scope.
    public var accessKeyId: String
    /// The secret access key; it never leaves the process.
    public var secretAccessKey: String
    /// The session token of temporary credentials (sent as `X-Amz-Security-Token`), or nil.
    public var sessionToken: String?

    /// Credentials.
    public init(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}

extension SigV4Credentials: CustomStringConvertible {
    /// The access key id only: the secret is never printed.
    public var description: String { "SigV4Credentials(accessKeyId: \(accessKeyId))" }
}

import DepotHTTP
import NIOHTTP1

/// The request fields access to a bundle is decided by (see ``BundleAccess``).
struct AccessFields {
    /// The token of the request's one `Authorization` field when it is a `Bearer` credential; nil when the
    /// request has no such field, several, or one of another scheme.
    var bearerToken: String?
    /// Every value of the edge secret's field.
    var edgeSecrets: [String]

    /// The fields as given.
    init(bearerToken: String?, edgeSecrets: [String] = []) {
        self.bearerToken = bearerToken
        self.edgeSecrets = edgeSecrets
    }

    /// The fields of a decoded head; the edge secret's field is read when `edgeSecretField` names one.
    init(_ headers: HTTPHeaders, edgeSecretField: String?) {
        let authorization = headers["authorization"]
        bearerToken = authorization.count == 1 ? BearerCredential.token(in: authorization[0]) : nil
        edgeSecrets = edgeSecretField.map { headers[$0] } ?? []
    }
}

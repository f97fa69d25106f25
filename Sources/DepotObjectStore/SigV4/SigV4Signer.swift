import Crypto
import DepotCore

/// Signs requests with AWS Signature Version 4 (`AWS4-HMAC-SHA256`), as S3 and the stores that speak its API
/// check them: the canonical request (method, encoded path, sorted query, the signed headers, the payload's hash),
/// the string to sign with its credential scope (`day/region/service/aws4_request`), and the HMAC chain that derives
/// the signing key from the secret.
///
/// The signer never normalises the path: S3 signs an object key as it is (encoded once), unlike most AWS services.
package struct SigV4Signer: Sendable {
    /// The payload hash that leaves the body out of the signature (S3 only, over TLS or on a trusted network).
    package static let unsignedPayload = "UNSIGNED-PAYLOAD"
    /// The hash of an empty body.
    package static let emptyPayloadHash = Hex.lowercase(SHA256.hash(data: [UInt8]()))

    /// The keys.
    package let credentials: SigV4Credentials
    /// The region in the credential scope (`us-east-1`; Ceph's RADOS Gateway takes its zonegroup's name).
    package let region: String
    /// The service in the credential scope: `s3`.
    package let service: String

    /// A signer for `service` in `region`.
    package init(credentials: SigV4Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// A request as it is signed: its header names are compared without case, its query items unencoded.
    package struct Request: Sendable {
        /// `GET`, `PUT`, ...
        package var method: String
        /// The path as sent, already percent-encoded (see ``SigV4Encoding/path(_:)``).
        package var encodedPath: String
        /// The query items, unencoded; an item without a value is `(name, "")`.
        package var query: [(name: String, value: String)]
        /// Every header that is signed, `Host` included.
        package var headers: [(name: String, value: String)]
        /// The hex SHA-256 of the body, or ``SigV4Signer/unsignedPayload``.
        package var payloadHash: String

        /// A request.
        package init(
            method: String, encodedPath: String, query: [(name: String, value: String)] = [],
            headers: [(name: String, value: String)], payloadHash: String
        ) {
            self.method = method
            self.encodedPath = encodedPath
            self.query = query
            self.headers = headers
            self.payloadHash = payloadHash
        }
    }

    /// The `Authorization` header's value for a request sent at `date` (its headers must hold `X-Amz-Date` with the
    /// same time, and `x-amz-content-sha256` for S3).
    package func authorization(_ request: Request, date: SigV4Date) -> String {
        let signedHeaders = Self.signedHeaderNames(request.headers)
        let signature = self.signature(request, date: date)
        return "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyId)/\(scope(date)),SignedHeaders=\(signedHeaders),"
            + "Signature=\(signature)"
    }

    /// The query items that make a presigned URL for `request` (only its `Host` header signed, the payload unsigned),
    /// valid for `expiresSeconds` (1 to 604,800) from `date`: the request's own items followed by the `X-Amz-*` ones.
    package func presignedQuery(_ request: Request, date: SigV4Date, expiresSeconds: Int) -> [(name: String, value: String)] {
        var signed = request
        signed.payloadHash = Self.unsignedPayload
        let signedHeaders = Self.signedHeaderNames(signed.headers)
        var items = request.query
        items.append(("X-Amz-Algorithm", "AWS4-HMAC-SHA256"))
        items.append(("X-Amz-Credential", "\(credentials.accessKeyId)/\(scope(date))"))
        items.append(("X-Amz-Date", date.timestamp))
        items.append(("X-Amz-Expires", String(min(max(expiresSeconds, 1), 604_800))))
        if let token = credentials.sessionToken { items.append(("X-Amz-Security-Token", token)) }
        items.append(("X-Amz-SignedHeaders", signedHeaders))
        signed.query = items
        items.append(("X-Amz-Signature", signature(signed, date: date)))
        return items
    }

    /// The hex signature of a request.
    package func signature(_ request: Request, date: SigV4Date) -> String {
        let key = signingKey(day: date.day)
        let text = stringToSign(request, date: date)
        return Hex.lowercase(HMAC<SHA256>.authenticationCode(for: Array(text.utf8), using: key))
    }

    /// `AWS4-HMAC-SHA256`, the time, the scope and the canonical request's hash, one per line.
    package func stringToSign(_ request: Request, date: SigV4Date) -> String {
        let canonical = Self.canonicalRequest(request)
        return "AWS4-HMAC-SHA256\n\(date.timestamp)\n\(scope(date))\n\(Hex.lowercase(SHA256.hash(data: Array(canonical.utf8))))"
    }

    /// `day/region/service/aws4_request`.
    package func scope(_ date: SigV4Date) -> String {
        "\(date.day)/\(region)/\(service)/aws4_request"
    }

    /// The key of one day: HMAC chained over the day, the region, the service and `aws4_request`.
    private func signingKey(day: Substring) -> SymmetricKey {
        var key = SymmetricKey(data: Array(("AWS4" + credentials.secretAccessKey).utf8))
        for part in [String(day), region, service, "aws4_request"] {
            key = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        return key
    }

    /// The canonical request: method, path, query, headers, signed header names and payload hash, one per line.
    package static func canonicalRequest(_ request: Request) -> String {
        let encoded: [(name: String, value: String)] = request.query.map {
            (SigV4Encoding.component($0.name), SigV4Encoding.component($0.value))
        }
        let sorted = encoded.sorted { left, right in left.name == right.name ? left.value < right.value : left.name < right.name }
        let query: String = sorted.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        let headers = canonicalHeaders(request.headers)
        let lines: String = headers.map { "\($0.name):\($0.value)\n" }.joined()
        let names: String = headers.map(\.name).joined(separator: ";")
        let path: String = request.encodedPath.isEmpty ? "/" : request.encodedPath
        let parts: [String] = [request.method, path, query, lines, names, request.payloadHash]
        return parts.joined(separator: "\n")
    }

    /// The signed header names, lower-case, sorted, joined by `;`.
    package static func signedHeaderNames(_ headers: [(name: String, value: String)]) -> String {
        canonicalHeaders(headers).map(\.name).joined(separator: ";")
    }

    /// Lower-case names, sorted; each value trimmed with its inner runs of spaces made one, repeated names joined
    /// by `,` in the order given.
    private static func canonicalHeaders(_ headers: [(name: String, value: String)]) -> [(name: String, value: String)] {
        var merged: [String: [String]] = [:]
        for header in headers {
            merged[header.name.lowercased(), default: []].append(trimmed(header.value))
        }
        return merged.keys.sorted().map { ($0, merged[$0, default: []].joined(separator: ",")) }
    }

    private static func trimmed(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }
}

import DepotHTTP
import NIOHTTP1

/// What ``BundleResponder`` reads of a bundle request: from a head NIO's decoder made, or from the bytes
/// (``RecognizedBundleRequest``, which is one).
///
/// A class: the answer reads the fields where they are, and a request whose file is being fetched is held by one
/// reference; as a value, each answer copied every field (a retain each, through outlined copies) and released them.
class BundleRequestFields {
    /// The request method.
    final let method: HTTPMethod
    /// The request target.
    final let target: BundleRequestTarget
    /// The fields access is decided by.
    final let access: AccessFields
    /// The conditional and range fields; nil when the request has none (the precomputed 200 then answers it).
    final let conditions: RequestConditions?
    /// The request's `X-Request-Id` when valid (see ``RequestId``).
    final let requestId: String?
    /// A GET's one conditional field, `Range: bytes=first-last`, read from the bytes (see ``RecognizedBundleRequest``).
    final let plainRange: ByteRange?

    /// The fields of a decoded head.
    init(_ head: HTTPRequestHead, target: BundleRequestTarget, edgeSecretField: String?) {
        method = head.method
        self.target = target
        access = AccessFields(head.headers, edgeSecretField: edgeSecretField)
        requestId = RequestId.accepted(head.headers.first(name: "X-Request-Id"))
        plainRange = nil
        if Self.hasConditionalFields(head.headers) {
            var conditions = RequestConditions(method: head.method == .HEAD ? .head : .get)
            for field in head.headers { conditions.add(name: field.name, value: field.value) }
            self.conditions = conditions
        } else {
            conditions = nil
        }
    }

    /// The fields of a request read straight from its bytes (see ``RecognizedBundleRequest``).
    init(
        method: HTTPMethod, target: BundleRequestTarget, bearerToken: String?, conditions: RequestConditions?,
        plainRange: ByteRange?, requestId: String?
    ) {
        self.method = method
        self.target = target
        access = AccessFields(bearerToken: bearerToken)
        self.conditions = conditions
        self.requestId = requestId
        self.plainRange = plainRange
    }

    /// Whether any field that can change the answer (RFC 9110 §13.1, §14.2) is present.
    static func hasConditionalFields(_ headers: HTTPHeaders) -> Bool {
        headers.contains { field in
            let name = field.name
            guard name.utf8.count >= 5, let first = name.utf8.first else { return false }
            // Only names starting with i/I or r/R can be If-* or Range.
            guard first | 0x20 == 0x69 || first | 0x20 == 0x72 else { return false }
            return name.caseInsensitiveEquals("range") || name.caseInsensitiveEquals("if-match")
                || name.caseInsensitiveEquals("if-none-match") || name.caseInsensitiveEquals("if-modified-since")
                || name.caseInsensitiveEquals("if-unmodified-since") || name.caseInsensitiveEquals("if-range")
        }
    }
}

import DepotAPI
import DepotCore
import DepotHTTP
import DepotLedger
import DepotServices
import Hummingbird
import Logging

/// Opens `/v1/publisher/...` to publishers: `Authorization: Bearer dpk_...` whose SHA-256 the ledger holds.
/// Puts the authenticated publisher into the request context; routes check each product against its scope.
///
/// No or malformed `Authorization`: 401 `publisher-key-required`; an unknown key: 401 `publisher-key-unknown`;
/// a revoked key: 403 `publisher-key-revoked`. The key is looked up by its digest and the digest compared
/// again in constant time; it is never logged or echoed.
struct PublisherAuthMiddleware: RouterMiddleware {
    typealias Context = DepotRequestContext
    let ledger: any Ledger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], let key = BearerCredential.token(in: header),
            PublisherKey.isWellFormed(key)
        else {
            throw DepotError(.publisherKeyRequired, "send Authorization: Bearer KEY with a publisher key (dpk_...)")
        }
        let digest = PublisherKey.digest(of: key)
        let record: PublisherKeyRecord?
        do {
            record = try await ledger.publisherKey(digest: digest)
        } catch {
            context.logger.error("publisher key not checked", metadata: ["error": "\(error)"])
            throw DepotError(.unavailable, "the publisher key cannot be checked right now; try again")
        }
        guard let record, PublisherKey.constantTimeEqual(record.keyDigest, digest) else {
            throw DepotError(.publisherKeyUnknown, "the publisher key is not known")
        }
        guard record.revokedAt == nil else {
            throw DepotError(.publisherKeyRevoked, "the publisher key was revoked")
        }
        var context = context
        context.publisher = AuthenticatedPublisher(keyId: record.id, name: record.publisher, productPrefixes: record.productPrefixes)
        return try await next(request, context)
    }
}

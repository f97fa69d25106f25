import DepotAPI
import DepotBundles
import DepotCore
import DepotLedger
import DepotServices
import Foundation
import Hummingbird
import HTTPTypes
import Logging

/// `POST /v1/publisher/products/{productId}/versions`, behind `PublisherAuthMiddleware`: turns a complete
/// upload of the caller's (a zip, tar or tar.gz of a pack) into a version, in the background.
///
/// Body: `{"upload": ID, "version": "1.1", "sha256": HEX, "contentId"?: ID, "publishedAt"?: ISO 8601}`.
/// What can be judged at once is (400 on a malformed field, 403 for a product or content id out of the key's
/// scope, 404 for an unknown product or
/// upload, 409 for an incomplete upload or a version already on its way, 410 for an expired upload); the
/// answer is then 202 with the job in state `received` and `Location` naming the versions list, where the
/// job moves through `validating` and `bundling` to `staged`, or to `failed` with the reason.
struct PublisherVersionRoutes: Sendable {
    let ledger: any Ledger
    let publishing: PublishingService
    let clock: @Sendable () -> Int64
    /// The time uploads expire by (the server's upload clock).
    let uploadClock: @Sendable () -> Int64

    func register(on group: RouterGroup<DepotRequestContext>) {
        group.post("/products/:productId/versions") { request, context in
            let productId = try PublisherProductRoutes.productId(context)
            let body = try await TransactionRoutes.decode(VersionRequest.self, from: request, context: context)
            let declared = try Self.validate(body)
            guard let publisher = context.publisher else {
                throw DepotError(.publisherKeyRequired, "a publisher key is required")
            }
            if let contentId = declared.contentId, !publisher.mayAct(on: contentId) {
                throw DepotError(.contentOutOfScope, "this publisher key may not stage content \(contentId)")
            }
            let logger = context.logger
            _ = try await self.publishing.product(productId)
            let now = self.clock()
            try await self.checkUpload(declared.upload, publisher: publisher.name, now: self.uploadClock(), logger: logger)
            let job = VersionJob(
                id: UploadService.newId(), productId: productId, version: declared.version, contentId: declared.contentId,
                uploadId: declared.upload, publisher: publisher.name, sha256: declared.sha256,
                publishedAt: declared.publishedAt, state: .received, createdAt: now, updatedAt: now)
            try await self.publishing.submit(job, publisher: publisher)
            var response = try TransactionRoutes.json(VersionJobEnvelope(version: PublisherVersionBody(job: job)))
            response.status = .accepted
            response.headers[.location] = "/v1/publisher/products/\(productId)/versions"
            return response
        }
    }

    /// The request's fields, checked one by one.
    struct Declared {
        var upload: String
        var version: String
        var sha256: String
        var contentId: String?
        var publishedAt: Int64?
    }

    static func validate(_ body: VersionRequest) throws -> Declared {
        guard let upload = body.upload, UploadService.isId(upload) else {
            throw DepotError(.invalidUploadId, "\"upload\" must be an upload's id (32 hex digits)")
        }
        guard let version = body.version, ProductValidation.isValidVersion(version) else {
            throw DepotError(.invalidVersion, "\"version\" is \(VersionName.rule)")
        }
        guard let sha256 = body.sha256?.lowercased(), sha256.utf8.count == 64,
            sha256.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else {
            throw DepotError(.invalidSHA256, "\"sha256\" must be the upload's SHA-256 as 64 hex digits")
        }
        if let contentId = body.contentId, !ProductValidation.isValidProductId(contentId) {
            throw DepotError(.invalidContentId, "\"contentId\" is \(Identifier.rule())")
        }
        var publishedAt: Int64?
        if let text = body.publishedAt {
            guard let time = UTCTimestamp.parse(text) else {
                throw DepotError(
                    .invalidPublishedAt, "\"publishedAt\" must be an ISO 8601 UTC time such as 2026-03-01T09:00:00Z")
            }
            publishedAt = time
        }
        return Declared(upload: upload, version: version, sha256: sha256, contentId: body.contentId, publishedAt: publishedAt)
    }

    /// The upload must be the caller's, complete and not expired.
    private func checkUpload(_ id: String, publisher: String, now: Int64, logger: Logger) async throws {
        guard
            let upload = try await Self.call(logger, { () async throws(LedgerError) in try await ledger.upload(id: id) }),
            upload.publisher == publisher
        else {
            throw DepotError(.unknownUpload, "no upload \(id) of this publisher")
        }
        guard upload.expiresAt > now else {
            throw DepotError(.uploadExpired, "upload \(id) expired; upload the pack again")
        }
        guard upload.isComplete else {
            let received = "\(upload.offset) of \(upload.length.map(String.init) ?? "an undeclared number of") bytes"
            throw DepotError(.uploadIncomplete, "upload \(id) is not complete (\(received) received); finish it first")
        }
    }

    /// Runs a ledger call of the route: a ledger failure is logged and answered 503.
    static func call<T>(_ logger: Logger, _ body: () async throws(LedgerError) -> T) async throws(DepotError) -> T {
        do {
            return try await body()
        } catch {
            logger.error("publisher request failed in the ledger", metadata: ["error": "\(error)"])
            throw DepotError(PublishingError.unavailable)
        }
    }
}

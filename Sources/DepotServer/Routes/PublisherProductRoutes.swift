import DepotAPI
import DepotCore
import DepotLedger
import DepotServices
import Foundation
import Hummingbird
import HTTPTypes
import Logging

/// The publisher's product and version routes, behind `PublisherAuthMiddleware`:
/// - `PUT /v1/publisher/products/{productId}` creates or updates a product (201 when created; once it has a
///   version or a transaction, its type and period are fixed: 409 `product-type-locked`);
/// - `GET /v1/publisher/products/{productId}` reads it with its versions;
/// - `GET /v1/publisher/products/{productId}/versions` lists the versions with their state;
/// - `POST /v1/publisher/products/{productId}/versions/{version}/publish` publishes (or rolls back to) a version;
/// - `DELETE /v1/publisher/products/{productId}/versions/{version}` removes a version never published (409 otherwise).
///
/// Version routes take `?contentId=` when a product has several contents (a subscription's issues) at one
/// version. A product outside the key's scope is 403. Every change is installed here at once and reaches
/// other instances through the catalog revision.
struct PublisherProductRoutes: Sendable {
    let ledger: any Ledger
    let refresher: CatalogRefresher
    let deltas: DeltaBuilder
    let purges: PurgeQueue
    let clock: @Sendable () -> Int64

    func register(on group: RouterGroup<DepotRequestContext>) {
        group.put("/products/:productId") { request, context in
            let productId = try Self.productId(context)
            let body = try await TransactionRoutes.decode(ProductRequest.self, from: request, context: context)
            let product = try ProductValidation.product(id: productId, body)
            let outcome = try await self.call { () async throws(LedgerError) in
                try await self.ledger.writeProduct(product, keepExisting: false, now: self.clock())
            }
            if case .typeLocked(let existing) = outcome { throw Self.typeLocked(existing) }
            await self.refresh()
            var response = try TransactionRoutes.json(PublisherProductEnvelope(product: try await self.productBody(productId)))
            if outcome == .created { response.status = .created }
            return response
        }
        group.get("/products/:productId") { _, context in
            let productId = try Self.productId(context)
            return try TransactionRoutes.json(PublisherProductEnvelope(product: try await self.productBody(productId)))
        }
        group.get("/products/:productId/versions") { _, context in
            let productId = try Self.productId(context)
            let product = try await self.productBody(productId)
            return try TransactionRoutes.json(PublisherVersionsBody(versions: product.versions))
        }
        group.post("/products/:productId/versions/:version/publish") { request, context in
            let productId = try Self.productId(context)
            let (contentId, version) = try await self.resolve(request, context, productId: productId)
            let now = self.clock()
            let outcome = try await self.call { () async throws(LedgerError) in
                try await self.ledger.publishVersion(productId: productId, contentId: contentId, version: version, now: now)
            }
            switch outcome {
            case .published(let record, let rollback, let changed):
                if changed {
                    await self.refresh()
                    self.deltas.enqueue(record.content)
                    self.purges.submit(PurgeTags.activated(record.content, rollback: rollback))
                    context.logger.info(
                        rollback ? "version rolled back to" : "version published",
                        metadata: [
                            "publisher": "\(context.publisher?.name ?? "?")", "content": "\(contentId)", "version": "\(version)",
                        ])
                }
                let versions = try await self.versions(productId)
                let body = PublisherVersionBody.list(versions, now: now).first {
                    $0.contentId == contentId && $0.version == version
                }
                guard let body else { throw Self.unknownVersion(contentId, version) }
                return try TransactionRoutes.json(PublishBody(version: body, rollback: rollback, changed: changed))
            case .unknownVersion:
                throw Self.unknownVersion(contentId, version)
            case .failedVersion:
                throw DepotError(.versionFailed, "version \(version) of \(contentId) failed and cannot be published")
            }
        }
        group.delete("/products/:productId/versions/:version") { request, context in
            let productId = try Self.productId(context)
            let (contentId, version) = try await self.resolve(request, context, productId: productId)
            let outcome = try await self.call { () async throws(LedgerError) in
                try await self.ledger.deleteVersion(productId: productId, contentId: contentId, version: version)
            }
            switch outcome {
            case .deleted:
                await self.refresh()
                self.purges.submit(PurgeTags.deleted(contentId: contentId, version: version))
                return Response(status: .noContent, headers: [.cacheControl: "no-store"])
            case .unknownVersion:
                throw Self.unknownVersion(contentId, version)
            case .wasPublished:
                throw DepotError(
                    .versionWasPublished,
                    "version \(version) of \(contentId) was published; published versions are kept (grants for them keep working)")
            }
        }
    }

    // MARK: Helpers

    /// The `{productId}` parameter, checked and in the key's scope.
    static func productId(_ context: DepotRequestContext) throws -> String {
        let raw = try context.parameters.require("productId")
        guard let id = raw.removingPercentEncoding, ProductValidation.isValidProductId(id) else {
            throw DepotError(
                .invalidProductId, "a product id is \(Identifier.rule())")
        }
        guard let publisher = context.publisher, publisher.mayAct(on: id) else {
            throw DepotError(.productOutOfScope, "this publisher key may not act on product \(id)")
        }
        return id
    }

    /// The content and version a version route names: `{version}` and `?contentId=`, or the only content of
    /// the product at that version.
    func resolve(_ request: Request, _ context: DepotRequestContext, productId: String) async throws -> (String, String) {
        let raw = try context.parameters.require("version")
        guard let version = raw.removingPercentEncoding, ProductValidation.isValidVersion(version) else {
            throw DepotError(.invalidVersion, "a version is 1-64 printable characters without spaces or '/'")
        }
        if let contentId = request.uri.queryParameters.get("contentId") {
            guard ProductValidation.isValidProductId(contentId) else {
                throw DepotError(.invalidContentId, "contentId is \(Identifier.rule())")
            }
            return (contentId, version)
        }
        let contents = Set(try await versions(productId).filter { $0.content.version == version }.map(\.content.contentId))
        switch contents.count {
        case 0:
            guard try await call({ () async throws(LedgerError) in try await ledger.catalogProduct(id: productId) }) != nil else {
                throw Self.unknownProduct(productId)
            }
            throw Self.unknownVersion(productId, version)
        case 1:
            return (contents.first!, version)
        default:
            throw DepotError(
                .ambiguousVersion,
                "several contents of \(productId) have version \(version) (\(contents.sorted().joined(separator: ", "))); add ?contentId=")
        }
    }

    func productBody(_ productId: String) async throws -> PublisherProductBody {
        guard let product = try await call({ () async throws(LedgerError) in try await ledger.catalogProduct(id: productId) }) else {
            throw Self.unknownProduct(productId)
        }
        // Versions on their way from an upload come first (newest first); a staged job is the catalog's version.
        let jobs = try await call { () async throws(LedgerError) in try await ledger.versionJobs(productId: productId) }
            .filter { $0.state != .staged }.map(PublisherVersionBody.init(job:))
        return PublisherProductBody(
            id: product.id, type: product.type.rawValue, title: product.title, periodDays: product.periodDays,
            versions: jobs + PublisherVersionBody.list(try await versions(productId), now: clock()))
    }

    func versions(_ productId: String) async throws -> [CatalogVersion] {
        try await call { () async throws(LedgerError) in try await ledger.catalogVersions(productId: productId) }
    }

    /// Installs the change here at once (other instances follow through the revision).
    func refresh() async {
        do { try await refresher.refresh() } catch { refresher.logger.warning("catalog not refreshed", metadata: ["error": "\(error)"]) }
    }

    func call<T>(_ body: () async throws(LedgerError) -> T) async throws(DepotError) -> T {
        try await Self.call(refresher.logger, body)
    }

    /// Runs a ledger call of a publisher route: a ledger failure is logged and answered 503.
    static func call<T>(_ logger: Logger, _ body: () async throws(LedgerError) -> T) async throws(DepotError) -> T {
        do {
            return try await body()
        } catch {
            logger.error("publisher request failed in the ledger", metadata: ["error": "\(error)"])
            throw DepotError(.unavailable, "the catalog cannot be changed right now; try again")
        }
    }

    /// A change of type or period refused: buyers keep the terms they bought under.
    static func typeLocked(_ existing: CatalogProduct) -> DepotError {
        let terms = existing.type.rawValue + (existing.periodDays.map { " of \($0) days" } ?? "")
        return DepotError(
            .productTypeLocked,
            "product \(existing.id) has versions or transactions, so it stays \(terms); "
                + "only its title may change (create a new product for other terms)")
    }

    static func unknownProduct(_ productId: String) -> DepotError {
        DepotError(.unknownProduct, "no product \(productId) in the catalog")
    }

    static func unknownVersion(_ contentId: String, _ version: String) -> DepotError {
        DepotError(.unknownVersion, "no version \(version) of \(contentId)")
    }
}

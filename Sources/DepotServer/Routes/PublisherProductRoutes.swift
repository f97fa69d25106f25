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
/// - the release routes (`PublisherReleaseRoutes`): publish (or roll back to) a version, in full, as a rollout or
///   to beta; raise or halt a rollout; promote a beta version;
/// - `DELETE /v1/publisher/products/{productId}/versions/{version}` removes a version never published (409 otherwise).
///
/// Version routes take `?contentId=` when a product has several contents (a subscription's issues) at one
/// version. A product outside the key's scope is 403. A publishing refusal is answered with its code by
/// `ErrorBodyMiddleware`. Every change is installed here at once and reaches
/// other instances through the catalog revision.
struct PublisherProductRoutes: Sendable {
    let publishing: PublishingService

    func register(on group: RouterGroup<DepotRequestContext>) {
        group.put("/products/:productId") { request, context in
            let productId = try Self.productId(context)
            let body = try await TransactionRoutes.decode(ProductRequest.self, from: request, context: context)
            let product = try ProductValidation.product(id: productId, body)
            let outcome = try await self.publishing.writeProduct(product)
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
        PublisherReleaseRoutes(products: self).register(on: group)
        group.delete("/products/:productId/versions/:version") { request, context in
            let productId = try Self.productId(context)
            let (contentId, version) = try await self.resolve(request, context, productId: productId)
            try await self.publishing.delete(productId: productId, contentId: contentId, version: version)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
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
            throw DepotError(.invalidVersion, "a version is \(VersionName.rule)")
        }
        let named = request.uri.queryParameters.get("contentId").map { String($0) }
        if let named, !ProductValidation.isValidProductId(named) {
            throw DepotError(.invalidContentId, "contentId is \(Identifier.rule())")
        }
        let contentId = try await publishing.content(productId: productId, version: version, contentId: named)
        return (contentId, version)
    }

    func productBody(_ productId: String) async throws(PublishingError) -> PublisherProductBody {
        let product = try await publishing.product(productId)
        // Versions on their way from an upload come first (newest first); a staged job is the catalog's version.
        let jobs = try await publishing.pendingJobs(productId).map(PublisherVersionBody.init(job:))
        return PublisherProductBody(
            id: product.id, type: product.type.rawValue, title: product.title, periodDays: product.periodDays,
            versions: jobs
                + PublisherVersionBody.list(
                    try await publishing.versions(productId), now: publishing.clock(), reach: try await publishing.reach(productId)))
    }
}

import DepotAPI
import DepotCore
import DepotServices
import Hummingbird

/// `GET /v1/products/{productId}/update?from=V[&contentId=C]`: what a buyer on version V would download to reach the
/// current version (a delta's size or the whole bundle's), so an app can say "Update: 12 MB". Public, as sizes are.
struct ProductUpdateRoute: Sendable {
    let catalogs: CatalogHolder
    let cacheControl: String
    let clock: @Sendable () -> Int64

    func register(on router: Router<DepotRequestContext>) {
        router.get("/v1/products/:productId/update") { request, context in
            let productId = context.parameters.get("productId") ?? ""
            let query = request.uri.queryParameters
            guard let from = query["from"].map(String.init), !from.isEmpty, from.utf8.count <= 255 else {
                throw DepotError.badRequest("send from=VERSION, the version the buyer holds (1 to 255 bytes)")
            }
            let contentId = query["contentId"].map(String.init)
            guard
                let preview = self.catalogs.current.updatePreview(
                    productId: productId, contentId: contentId, from: from, at: self.clock())
            else {
                throw DepotError.notFound(
                    "no such product on sale, or it has several contents and contentId does not name one of them")
            }
            var response = try TransactionRoutes.json(
                UpdatePreviewBody(
                    productId: productId, contentId: preview.current.contentId, from: from, to: preview.current.version,
                    download: preview.kind.rawValue, bytes: preview.bytes))
            response.headers[.cacheControl] = self.cacheControl
            return response
        }
    }
}

import DepotAPI
import DepotCore
import DepotHTTP
import DepotServices
import Hummingbird
import HTTPTypes
import NIOCore

/// `GET /products_v1.json` and `GET /v1/products`, answering If-None-Match and If-Modified-Since with 304.
struct ProductRoutes: Sendable {
    let catalogs: CatalogHolder
    let cacheControl: String
    /// Fields added as a CDN's origin (the lists' purge tag).
    let originFields: [(name: String, value: String)]
    let clock: @Sendable () -> Int64

    func register(on router: Router<DepotRequestContext>) {
        router.on("/products_v1.json", method: .get) { request, _ in
            try self.respond(to: request, with: try self.catalogs.listing(at: self.clock()).identifiers)
        }
        router.on("/products_v1.json", method: .head) { request, _ in
            try self.respond(to: request, with: try self.catalogs.listing(at: self.clock()).identifiers)
        }
        router.on("/v1/products", method: .get) { request, _ in
            try self.respond(to: request, with: try self.catalogs.listing(at: self.clock()).products)
        }
        router.on("/v1/products", method: .head) { request, _ in
            try self.respond(to: request, with: try self.catalogs.listing(at: self.clock()).products)
        }
    }

    /// The list, or 304/412 per RFC 9110 §13.2.2. Ranges are not offered on lists (they are small).
    func respond(to request: Request, with document: ProductListing.Document) throws -> Response {
        let representation = RepresentationMetadata(
            size: Int64(document.body.count), entityTag: document.entityTag, lastModified: document.lastModified,
            contentType: "application/json", cacheControl: cacheControl)
        let fields = request.headers.lazy
            .filter { $0.name != .range && $0.name != .ifRange }
            .map { (name: $0.name.canonicalName, value: $0.value) }
        let method: RequestMethod = request.method == .head ? .head : .get
        let plan = ConditionalEvaluator.plan(
            for: RequestConditions(method: method, headers: fields), representation: representation,
            now: clock(), boundary: "unused")
        var headers = HTTPFields()
        for field in plan.headers where field.name.lowercased() != "accept-ranges" {
            if let name = HTTPField.Name(field.name) { headers.append(HTTPField(name: name, value: field.value)) }
        }
        if plan.status == 200 || plan.status == 304 {
            for field in originFields {
                if let name = HTTPField.Name(field.name) { headers.append(HTTPField(name: name, value: field.value)) }
            }
        }
        switch plan.status {
        case 200:
            let body = request.method == .head ? ByteBuffer() : ByteBuffer(bytes: document.body)
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
        case 304:
            return Response(status: .notModified, headers: headers)
        default:
            throw DepotError(.preconditionFailed, "a precondition of the request does not hold for this list")
        }
    }
}

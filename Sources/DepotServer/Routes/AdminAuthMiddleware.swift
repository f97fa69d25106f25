import DepotAPI
import DepotCore
import Hummingbird

/// Opens `/v1/admin/...` to operators: `Authorization: Bearer TOKEN` whose SHA-256 is configured.
/// Tokens are stored hashed and compared in constant time.
struct AdminAuthMiddleware: RouterMiddleware {
    typealias Context = DepotRequestContext
    let tokens: BearerTokenDigests

    init(hexDigests: [String]) {
        tokens = BearerTokenDigests(hexDigests: hexDigests)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try tokens.check(
            request.headers[.authorization],
            missing: DepotError(.adminTokenRequired, "send Authorization: Bearer ADMIN_TOKEN"),
            refused: DepotError(.adminTokenRefused, "the admin token is not accepted"))
        return try await next(request, context)
    }
}

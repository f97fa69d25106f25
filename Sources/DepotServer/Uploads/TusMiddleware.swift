import DepotServices
import DepotCore
import Hummingbird
import HTTPTypes

/// In front of the upload routes: refuses a tus version other than 1.0.0 (412 with `Tus-Version`),
/// renders every error in Depot's JSON shape, and puts `Tus-Resumable: 1.0.0` on every answer, errors
/// included (tus 1.0 "Tus-Resumable"). An error answer closes the connection (`Connection: close`): the rest of a
/// refused body is never read, so a client without a key cannot hold the connection by sending one slowly.
struct TusMiddleware: RouterMiddleware {
    typealias Context = DepotRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        var response = try await ErrorBodyMiddleware<Context>().handle(request, context: context) { request, context in
            try UploadRules.checkVersion(method: request.method, tusResumable: request.headers[.tusResumable])
            return try await next(request, context)
        }
        if response.status.code == 412 { response.headers[.tusVersion] = TusProtocol.version }
        if response.status.code >= 400 { response.headers[.connection] = "close" }
        response.headers[.tusResumable] = TusProtocol.version
        return response
    }
}

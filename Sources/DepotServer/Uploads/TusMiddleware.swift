import DepotCore
import Hummingbird
import HTTPTypes

/// In front of the upload routes: refuses a tus version other than 1.0.0 (412 with `Tus-Version`),
/// renders every error in Depot's JSON shape, and puts `Tus-Resumable: 1.0.0` on every answer, errors
/// included (tus 1.0 "Tus-Resumable").
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
        response.headers[.tusResumable] = TusProtocol.version
        return response
    }
}

import DepotOrigin
import Hummingbird

/// Behind the publisher key check of the upload routes: a PATCH or POST whose key was accepted tells its connection
/// so (``UploadAuthorizedEvent``) before its body is read, and only then may that body take longer than
/// `server.requestTimeoutSeconds` while its bytes keep coming (see ``RequestDeadline``).
struct UploadKeyAcceptedMiddleware: RouterMiddleware {
    typealias Context = DepotRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        if request.method == .patch || request.method == .post {
            context.channel.triggerUserOutboundEvent(UploadAuthorizedEvent(), promise: nil)
        }
        return try await next(request, context)
    }
}

import DepotAPI
import DepotOrigin
import Hummingbird

/// Behind the publisher key check of the upload routes: a PATCH or POST whose key was accepted tells its connection
/// so (``UploadAuthorizedEvent``) before its body is read, and only then may that body take longer than
/// `server.requestTimeoutSeconds` while its bytes keep coming (see ``RequestDeadline``).
///
/// The route goes on only once the connection took the word: its body is never read under the whole-request
/// deadline it has just been lifted from, and a connection whose deadline passed first (already answered 408)
/// starts nothing.
struct UploadKeyAcceptedMiddleware: RouterMiddleware {
    typealias Context = DepotRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        if request.method == .patch || request.method == .post {
            let taken = context.channel.eventLoop.makePromise(of: Void.self)
            context.channel.triggerUserOutboundEvent(UploadAuthorizedEvent(), promise: taken)
            do {
                try await taken.futureResult.get()
            } catch is UploadAuthorizedEvent.ConnectionClosing {
                throw DepotError(.requestTimeout, "the request did not arrive in full within the request timeout")
            } catch {
                // A pipeline without the bundle handler cannot take the word; its deadline is its own.
            }
        }
        return try await next(request, context)
    }
}

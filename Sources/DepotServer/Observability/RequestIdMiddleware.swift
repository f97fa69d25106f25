import DepotTelemetry
import DepotOrigin
import HTTPTypes
import Hummingbird
import Logging

/// Names every routed request: the id (`RequestId`) goes into the request's logger metadata (as
/// `hb.request.id`, where Hummingbird's own lines and `context.id` read it), into `RequestId.current` for the
/// lines of the services the route calls, into the `X-Request-Id` field of the answer, and, through
/// `DepotErrorResponse`, into error bodies. Each answer is logged at debug level with
/// its method, path (never the query, which may carry a grant) and status.
struct RequestIdMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        let id = RequestId.accepted(request.headers[.xRequestId]) ?? RequestId.generate()
        var context = context
        context.logger[metadataKey: RequestId.metadataKey] = .string(id)
        var response = try await RequestId.$current.withValue(id) { try await next(request, context) }
        response.headers[.xRequestId] = id
        context.logger.debug(
            "answered",
            metadata: [
                "method": "\(request.method.rawValue)", "path": "\(request.uri.path)",
                "status": "\(response.status.code)",
            ])
        return response
    }
}

extension HTTPField.Name {
    /// `X-Request-Id`: the id of a request, taken from the client when valid, always answered.
    static let xRequestId = HTTPField.Name("X-Request-Id")!
}

import DepotCore
import Hummingbird
import HTTPTypes
import Logging
import NIOCore

/// A `DepotError` thrown from a route, rendered as Depot's JSON error body with its status and the id of the
/// request it answers (`error.requestId`, the `X-Request-Id` that `RequestIdMiddleware` settled on).
struct DepotErrorResponse: HTTPResponseError {
    let error: DepotError

    init(_ error: DepotError) { self.error = error }

    var status: HTTPResponse.Status { .init(code: error.status) }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        let body = ByteBuffer(string: error.jsonBody(requestId: context.id))
        headers[.contentLength] = String(body.readableBytes)
        if let retryAfter = error.retryAfterSeconds { headers[.retryAfter] = String(max(1, retryAfter)) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: request.method == .head ? ByteBuffer() : body))
    }
}

/// Turns every error a route throws into Depot's JSON error shape: a `DepotError` as it is, Hummingbird's
/// `HTTPError` by its status; unknown errors become a logged 500. Routes throw `DepotError` directly.
struct ErrorBodyMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as DepotError {
            return try DepotErrorResponse(error).response(from: request, context: context)
        } catch let error as DepotErrorResponse {
            return try error.response(from: request, context: context)
        } catch let error as HTTPError {
            let code = error.status == .notFound ? "not-found" : "http-\(error.status.code)"
            let message = error.body ?? error.status.reasonPhrase
            return try DepotErrorResponse(DepotError(status: error.status.code, code: code, message: message))
                .response(from: request, context: context)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(error)"])
            return try DepotErrorResponse(DepotError(status: 500, code: "internal", message: "the server failed to answer"))
                .response(from: request, context: context)
        }
    }
}

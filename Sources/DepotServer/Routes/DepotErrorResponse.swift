import DepotTelemetry
import DepotServices
import DepotAPI
import Hummingbird
import HTTPTypes
import Logging
import NIOCore

/// A `DepotError` thrown from a route, answered as `ErrorAnswer` renders it, with the id of the request it
/// answers (`error.requestId`, the `X-Request-Id` that `RequestIdMiddleware` settled on).
struct DepotErrorResponse: HTTPResponseError {
    let error: DepotError

    init(_ error: DepotError) { self.error = error }

    var status: HTTPResponse.Status { .init(code: error.status) }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let answer = ErrorAnswer(error, isHead: request.method == .head, requestId: context.id)
        var headers = HTTPFields()
        for field in answer.fields {
            if let name = HTTPField.Name(field.name) { headers.append(HTTPField(name: name, value: field.value)) }
        }
        // A body over the limit is refused before it is read: the connection ends with the answer (the bundle
        // handler closes on it) instead of reading that body to its end (RFC 9110 §15.5.14 allows closing).
        if error.status == 413 { headers[.connection] = "close" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: answer.body)))
    }
}

/// Turns every error a route throws into Depot's JSON error shape: a `DepotError` as it is, Hummingbird's
/// `HTTPError` by the code its status has in `ErrorCode`'s table; anything else becomes a logged 500.
/// Routes throw `DepotError` directly.
struct ErrorBodyMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as DepotError {
            return try DepotErrorResponse(error).response(from: request, context: context)
        } catch let error as DepotErrorResponse {
            return try error.response(from: request, context: context)
        } catch let error as UploadError {
            return try DepotErrorResponse(DepotError(error)).response(from: request, context: context)
        } catch let error as DeliveryError {
            return try DepotErrorResponse(DepotError(error)).response(from: request, context: context)
        } catch let error as PublishingError {
            return try DepotErrorResponse(DepotError(error)).response(from: request, context: context)
        } catch let error as HTTPError {
            return try DepotErrorResponse(Self.depotError(error, logger: context.logger)).response(from: request, context: context)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(error)"])
            return try DepotErrorResponse(DepotError(.internal, "the server failed to answer"))
                .response(from: request, context: context)
        }
    }

    /// The table's code for an error Hummingbird threw (no route, an unreadable parameter or body).
    static func depotError(_ error: HTTPError, logger: Logger) -> DepotError {
        let message = error.body ?? error.status.reasonPhrase
        switch error.status.code {
        case 400: return DepotError(.badRequest, message)
        case 404: return DepotError(.notFound, message)
        case 405: return DepotError(.methodNotAllowed, message)
        case 413: return DepotError(.tooLarge, message)
        default:
            logger.error("request failed with an unexpected status", metadata: ["status": "\(error.status.code)", "error": "\(message)"])
            return DepotError(.internal, "the server failed to answer")
        }
    }
}

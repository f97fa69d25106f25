import DepotTelemetry
import Hummingbird

/// Counts every routed request by route pattern (`/v1/transactions/{id}/finish`, `unmatched` when no route
/// took it), method and status, and records how long the answer took to be produced. Sits outside
/// `ErrorBodyMiddleware`, so errors are counted with the status they are answered with.
///
/// Bundle requests are answered below Hummingbird and counted by the byte path's own hooks instead.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: DepotMetrics

    /// Methods counted under their own name; any other is counted as `other`, so that no client can make up
    /// label values without end.
    static var knownMethods: Set<String> { ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] }

    /// The matched route's pattern; `unmatched` when no route took the request (Hummingbird names it `NotFound`).
    static func route(_ context: Context) -> String {
        guard let path = context.endpointPath, path.hasPrefix("/") else { return "unmatched" }
        return path
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        let start = ContinuousClock.now
        let method = Self.knownMethods.contains(request.method.rawValue) ? request.method.rawValue : "other"
        do {
            let response = try await next(request, context)
            metrics.request(
                route: Self.route(context), method: method, status: response.status.code,
                duration: ContinuousClock.now - start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.request(
                route: Self.route(context), method: method, status: status,
                duration: ContinuousClock.now - start)
            throw error
        }
    }
}

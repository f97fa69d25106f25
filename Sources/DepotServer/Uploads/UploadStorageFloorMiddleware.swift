import DepotAPI
import DepotServices
import Hummingbird
import Logging

/// Behind the publisher key check of the upload routes: a POST (creation) or PATCH (append) is refused with 507
/// `insufficient-storage` before its body is read while the data directory's filesystem is below its free-space floor
/// (`storage.minFreeBytes`, see ``StorageFloor``). HEAD, OPTIONS and DELETE go on: they write nothing, and a DELETE
/// frees space. The floor reads the free space at most once a second, so freeing space is seen without a restart.
struct UploadStorageFloorMiddleware: RouterMiddleware {
    typealias Context = DepotRequestContext

    /// The floor checked.
    let floor: StorageFloor

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        if request.method == .patch || request.method == .post {
            let decision = floor.decision()
            if decision != .enough {
                context.logger.warning("an upload was refused: the disk is below its floor", metadata: ["reason": "\(decision.message)"])
                throw DepotError(.insufficientStorage, decision.message)
            }
        }
        return try await next(request, context)
    }
}

import DepotAPI
import DepotCore
import DepotLedger
import DepotTrust
import Hummingbird

/// Operator endpoints under `/v1/admin`, behind `AdminAuthMiddleware`: stuck deliveries and what is
/// known of one transaction, with its delivery evidence; App Store Server API calls pending or failed. Lists and audit trails come in pages
/// (`?limit=`, `?cursor=` from the previous page's `nextCursor`).
struct AdminRoutes: Sendable {
    let service: DeliveryService
    let tokenDigests: [String]

    func register(on router: Router<DepotRequestContext>) {
        let admin = router.group("/v1/admin").add(middleware: AdminAuthMiddleware(hexDigests: tokenDigests))
        admin.get("/deliveries/unfinished") { request, _ in
            let olderThan = request.uri.queryParameters.get("olderThan", as: Int64.self) ?? 3600
            guard olderThan >= 0 else { throw DepotError.badRequest("olderThan must be a number of seconds") }
            // A position holds a transaction id a signed transaction can carry, and text without U+0000.
            let page = try PageRequest<DeliveryKey>(request) { key in
                TransactionIdentifier.isAcceptable(key.transactionId) && !key.contentId.utf8.contains(0)
                    && !key.version.utf8.contains(0)
            }
            return try TransactionRoutes.json(try await self.service.unfinished(olderThan: olderThan, page: page))
        }
        admin.get("/apple-outbox") { request, _ in
            try TransactionRoutes.json(try await self.service.unsettledStoreJobs(try PageRequest<Int64>(request)))
        }
        admin.get("/irregular") { request, _ in
            // Paged by offset: a negative one was never handed out.
            try TransactionRoutes.json(try await self.service.irregular(try PageRequest<Int>(request, accepts: { $0 >= 0 })))
        }
        admin.get("/transactions/:id") { request, context in
            let id = try context.transactionIdParameter()
            let page = try PageRequest<Int64>(request)
            return try TransactionRoutes.json(try await self.service.report(transactionId: id, auditPage: page))
        }
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// A local stand-in for the Google Play Developer API, for development and tests (`depot dev googleplay`).
///
/// It answers as Google documents:
/// - `POST /token`: the OAuth 2.0 JWT bearer grant, for assertions `GooglePlayDoubleAssertion` accepts, with an
///   access token good for an hour (see `GooglePlayDouble+Token.swift`);
/// - under `/androidpublisher/v3/applications/{packageName}/purchases/`, after checking the access token
///   (401 `UNAUTHENTICATED` when it is missing, unknown or expired) and the package name (404
///   `applicationNotFound` for another): `products/{productId}/tokens/{token}` (get, `:acknowledge`,
///   `:consume`), `subscriptions/{subscriptionId}/tokens/{token}` (get, `:acknowledge`) and `voidedpurchases`
///   (see `GooglePlayDouble+Purchases.swift` and `GooglePlayDouble+Voided.swift`), and `orders/{orderId}:reviewrefund`
///   (see `GooglePlayDouble+RefundReviews.swift`).
///
/// Control routes (`/_double/...`, see `GooglePlayDouble+Control.swift`) hold purchases and voided purchases,
/// make the next calls fail, and list what was received.
package final class GooglePlayDouble: Sendable {
    /// One API or token request as received and answered.
    package struct Recorded: Codable, Sendable, Equatable {
        /// `POST`, `GET`, ...
        package var method: String
        /// The path, with the query when there was one.
        package var path: String
        /// The body as text (empty when there was none).
        package var body: String
        /// The status the double answered with.
        package var status: Int
        /// Why the access token or the token request was refused, when it was.
        package var refusal: String?
        /// When it arrived by the double's clock, in seconds since 1970.
        package var receivedAt: Double
    }

    /// Failures to answer instead of the next API calls.
    package struct FailurePlan: Codable, Sendable {
        /// How many calls fail.
        package var count: Int
        /// With which status (429 or 500-599).
        package var status: Int
        /// The `Retry-After` seconds to send, if any.
        package var retryAfter: Int?

        /// Creates a plan.
        package init(count: Int, status: Int, retryAfter: Int?) {
            self.count = count
            self.status = status
            self.retryAfter = retryAfter
        }
    }

    /// The service account whose assertions the token endpoint accepts.
    package let serviceAccount: GooglePlayDoubleServiceAccount
    /// The only package name the API answers for.
    package let packageName: String
    let assertion: GooglePlayDoubleAssertion
    let clock: @Sendable () -> Int64
    let state = NIOLockedValueBox(State())

    struct State {
        var recorded: [Recorded] = []
        /// Plans in the order they were given; the first one is used up before the next applies.
        var failures: [FailurePlan] = []
        /// Access tokens issued, with when each expires (milliseconds since 1970).
        var accessTokens: [String: Int64] = [:]
        /// Purchases by purchase token.
        var purchases: [String: GooglePlayDoublePurchase] = [:]
        /// Voided purchases, in the order they were given.
        var voided: [GooglePlayDoubleVoidedPurchase] = []
        /// Pending refund reviews by token.
        var refundReviews: [String: RefundReview] = [:]
        /// The token endpoint's URI, once the server listens: what assertions' `aud` must be.
        var tokenURI: String?
    }

    /// A double for `serviceAccount` answering for `packageName`, judging time by `clock` (milliseconds since 1970).
    package init(
        serviceAccount: GooglePlayDoubleServiceAccount, packageName: String = GooglePlayDoubleSetup.defaultPackageName,
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.serviceAccount = serviceAccount
        self.packageName = packageName
        self.assertion = GooglePlayDoubleAssertion(serviceAccount: serviceAccount)
        self.clock = clock
    }

    /// Every API and token request received so far, oldest first.
    package var requests: [Recorded] { state.withLockedValue { $0.recorded } }

    /// The token endpoint's URI once the server listens (`http://HOST:PORT/token`), else nil.
    package var tokenURI: String? { state.withLockedValue { $0.tokenURI } }

    /// Makes the next `count` API calls fail with `status` (and `Retry-After: retryAfter` when given), after the
    /// failures already planned; a count of 0 cancels every planned failure.
    package func failNext(_ plan: FailurePlan) {
        state.withLockedValue { state in
            if plan.count > 0 { state.failures.append(plan) } else { state.failures.removeAll() }
        }
    }

    /// Holds `purchase` under its token, replacing any purchase held for that token.
    package func holdPurchase(_ purchase: GooglePlayDoublePurchase) {
        state.withLockedValue { $0.purchases[purchase.purchaseToken] = purchase }
    }

    /// The purchase held for `purchaseToken`, as it stands now.
    package func purchase(token purchaseToken: String) -> GooglePlayDoublePurchase? {
        state.withLockedValue { $0.purchases[purchaseToken] }
    }

    /// Adds `voided` to the voided purchases listed, and marks a purchase held for its token cancelled
    /// (`purchaseState` 1); a quantity-based partial refund (`refundType` 2 with a `voidedQuantity`) takes its units
    /// off the purchase's `refundableQuantity` instead, and cancels it only once none remain.
    package func holdVoided(_ voided: GooglePlayDoubleVoidedPurchase) {
        state.withLockedValue { state in
            state.voided.append(voided)
            guard var held = state.purchases[voided.purchaseToken] else { return }
            let refundable = held.refundableQuantity ?? held.quantity
            if voided.refundType == 2, let units = voided.voidedQuantity, units < refundable {
                held.refundableQuantity = refundable - units
            } else {
                held.refundableQuantity = 0
                held.purchaseState = 1
            }
            state.purchases[voided.purchaseToken] = held
        }
    }

    /// The Hummingbird application serving the double on `host:port`; `onRunning` receives the bound port, after
    /// the double has taken `http://HOST:PORT/token` as its token URI.
    package func makeApplication(
        host: String = "127.0.0.1", port: Int, logger: Logger, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        for method in [HTTPRequest.Method.get, .post, .put, .delete, .patch, .head] {
            router.on("**", method: method) { request, context in try await self.respond(request, context: context) }
            router.on("/", method: method) { request, context in try await self.respond(request, context: context) }
        }
        return Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? 0
                let uri = GooglePlayDoubleSetup.tokenURL(baseURL: GooglePlayDoubleSetup.baseURL(host: host, port: bound))
                self.state.withLockedValue { $0.tokenURI = uri }
                await onRunning(bound)
            }, logger: logger)
    }

    private func respond(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let path = request.uri.path
        // Recorded with its query, so a page asked for by token shows.
        let shown = request.uri.query.map { path + "?" + $0 } ?? path
        let bodyBuffer = try await request.body.collect(upTo: 1 << 20)
        let body = String(buffer: bodyBuffer)
        if path.hasPrefix("/_double/") {
            return control(request.method, path: path, body: bodyBuffer)
        }
        if path == "/oauth2/v3/certs", request.method == .get {
            return certificates()
        }
        if path == "/token" {
            let (answer, refusal) =
                request.method == .post
                ? grant(body: body) : (Self.googleError(.notFound, "The requested URL was not found.", status: "NOT_FOUND"), nil)
            record(request.method, shown, body, status: Int(answer.status.code), refusal: refusal)
            return answer
        }
        if let refusal = accessRefusal(authorization: request.headers[.authorization]) {
            record(request.method, shown, body, status: 401, refusal: refusal)
            var answer = Self.googleError(.unauthorized, "Request had invalid authentication credentials.", status: "UNAUTHENTICATED")
            answer.headers[.wwwAuthenticate] = #"Bearer realm="https://accounts.google.com/""#
            return answer
        }
        if let failure = takeFailure() {
            record(request.method, shown, body, status: failure.status, refusal: nil)
            var answer = Self.failureAnswer(status: failure.status)
            if let seconds = failure.retryAfter { answer.headers[.retryAfter] = String(seconds) }
            return answer
        }
        let answer = route(request.method, path: path, query: request.uri.query, body: bodyBuffer)
        record(request.method, shown, body, status: Int(answer.status.code), refusal: nil)
        return answer
    }

    private func takeFailure() -> FailurePlan? {
        state.withLockedValue { state in
            guard let plan = state.failures.first else { return nil }
            if plan.count > 1 { state.failures[0].count -= 1 } else { state.failures.removeFirst() }
            return plan
        }
    }

    private func record(_ method: HTTPRequest.Method, _ path: String, _ body: String, status: Int, refusal: String?) {
        let receivedAt = Double(clock()) / 1000
        state.withLockedValue {
            $0.recorded.append(
                Recorded(method: method.rawValue, path: path, body: body, status: status, refusal: refusal, receivedAt: receivedAt))
        }
    }
}

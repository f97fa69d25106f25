import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// A local stand-in for the App Store Server API, for development and tests (`depot dev appstore`).
///
/// It serves the endpoints Depot calls as Apple documents them, after checking each request's token with
/// `AppStoreDoubleToken` (401 without a body when the token is bad, as Apple answers):
/// - `POST /inApps/v1/transactions/{transactionId}/finish` (Finish Transaction): 200;
/// - `GET /inApps/v1/transactions/{transactionId}` (Get Transaction Info): the signed transaction the double
///   was given for it (`holdTransaction`), else 404 `TransactionIdNotFoundError`;
/// - `POST /inApps/v1/notifications/history` (Get Notification History): the notifications it was given
///   (`holdNotification`) sent within the request's `startDate`..<`endDate`, paginated, with Apple's errors for
///   missing, inverted or too old dates and bad pagination tokens;
/// - `PUT /inApps/v2/transactions/consumption/{transactionId}` (Send Consumption Information): 202 for a body
///   Apple accepts (`customerConsented` true, a known `deliveryStatus`, `sampleContentProvided`, a
///   `consumptionPercentage` of 0 unless delivered), else 400 with Apple's error code;
/// A transaction id that is not 1-64 digits is answered 400 `InvalidTransactionIdError`; other paths 404.
///
/// Control routes (`/_double/...`, see `AppStoreDouble+Control.swift`) make the next calls fail, list what was
/// received, and hold what Get Transaction Info and Get Notification History answer.
package final class AppStoreDouble: Sendable {
    /// One API request as received and answered.
    package struct Recorded: Codable, Sendable, Equatable {
        /// `POST`, `GET`, ...
        package var method: String
        /// The path, with the query when there was one.
        package var path: String
        /// The body as text (empty when there was none).
        package var body: String
        /// The status the double answered with.
        package var status: Int
        /// Why the token was refused, when it was.
        package var refusal: String?
        /// When it arrived, in seconds since 1970.
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

    private let token: AppStoreDoubleToken
    let clock: @Sendable () -> Int64
    let historyPageSize: Int
    let state = NIOLockedValueBox(State())

    struct State {
        var recorded: [Recorded] = []
        /// Plans in the order they were given; the first one is used up before the next applies.
        var failures: [FailurePlan] = []
        /// Get Transaction Info's answers, by transaction id.
        var signedTransactions: [String: String] = [:]
        /// Notifications "sent" (signedPayload, milliseconds since 1970), for Get Notification History.
        var notifications: [(payload: String, sentAt: Int64)] = []
    }

    /// Records a notification as sent at `sentAt` (milliseconds since 1970), for Get Notification History.
    package func holdNotification(_ signedPayload: String, sentAt: Int64) {
        state.withLockedValue { $0.notifications.append((signedPayload, sentAt)) }
    }

    /// A double that accepts tokens `token` accepts, judged at `clock`'s time (seconds since 1970).
    /// `historyPageSize` is how many notifications a page of history holds (Apple's: 20).
    package init(
        token: AppStoreDoubleToken, clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) },
        historyPageSize: Int = 20
    ) {
        self.token = token
        self.clock = clock
        self.historyPageSize = max(1, historyPageSize)
    }

    /// Every API request received so far, oldest first.
    package var requests: [Recorded] { state.withLockedValue { $0.recorded } }

    /// Makes the next `count` API calls fail with `status` (and `Retry-After: retryAfter` when given), after the
    /// failures already planned; a count of 0 cancels every planned failure.
    package func failNext(_ plan: FailurePlan) {
        state.withLockedValue { state in
            if plan.count > 0 { state.failures.append(plan) } else { state.failures.removeAll() }
        }
    }

    /// Makes Get Transaction Info answer `signedTransactionInfo` (a JWS) for `transactionId`.
    package func holdTransaction(_ transactionId: String, signedTransactionInfo: String) {
        state.withLockedValue { $0.signedTransactions[transactionId] = signedTransactionInfo }
    }

    /// The Hummingbird application serving the double on `host:port`; `onRunning` receives the bound port.
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
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) }, logger: logger)
    }

    private func respond(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let path = request.uri.path
        // Recorded with its query, so a page asked for by paginationToken shows.
        let shown = request.uri.query.map { path + "?" + $0 } ?? path
        let bodyBuffer = try await request.body.collect(upTo: 1 << 20)
        let body = String(buffer: bodyBuffer)
        if path.hasPrefix("/_double/") {
            return control(request.method, path: path, body: bodyBuffer)
        }
        if let refusal = token.refusal(authorization: request.headers[.authorization], now: clock()) {
            record(request.method, shown, body, status: 401, refusal: refusal)
            return Response(status: .unauthorized)
        }
        if let failure = takeFailure() {
            record(request.method, shown, body, status: failure.status, refusal: nil)
            var fields = HTTPFields()
            if let seconds = failure.retryAfter { fields[.retryAfter] = String(seconds) }
            let (code, message) =
                failure.status == 429 ? (4_290_000, "Rate limit exceeded.") : (5_000_000, "An unknown error occurred.")
            return Self.appleError(HTTPResponse.Status(code: failure.status), code, message, fields: fields)
        }
        let answer = route(request.method, path: path, query: request.uri.query, body: bodyBuffer)
        record(request.method, shown, body, status: Int(answer.status.code), refusal: nil)
        return answer
    }

    /// Apple's answers for the documented endpoints.
    private func route(_ method: HTTPRequest.Method, path: String, query: String?, body: ByteBuffer) -> Response {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        switch (method, segments.count) {
        case (.post, 4) where segments == ["inApps", "v1", "notifications", "history"]:
            return history(query: query, body: body)
        case (.post, 5) where segments[0...2] == ["inApps", "v1", "transactions"] && segments[4] == "finish":
            guard Self.isTransactionId(segments[3]) else { return Self.invalidTransactionId }
            return Response(status: .ok)
        case (.get, 4) where segments[0...2] == ["inApps", "v1", "transactions"]:
            guard Self.isTransactionId(segments[3]) else { return Self.invalidTransactionId }
            guard let jws = state.withLockedValue({ $0.signedTransactions[segments[3]] }) else {
                return Self.appleError(.notFound, 4_040_010, "Transaction id not found.")
            }
            return Self.json(.ok, #"{"signedTransactionInfo": \#(AppStoreDoubleSetup.quoted(jws))}"#)
        case (.put, 5) where segments[0...3] == ["inApps", "v2", "transactions", "consumption"]:
            guard Self.isTransactionId(segments[4]) else { return Self.invalidTransactionId }
            return consumption(body)
        default:
            return Self.appleError(.notFound, 4_040_000, "The requested resource was not found.")
        }
    }

    private func takeFailure() -> FailurePlan? {
        state.withLockedValue { state in
            guard let plan = state.failures.first else { return nil }
            if plan.count > 1 { state.failures[0].count -= 1 } else { state.failures.removeFirst() }
            return plan
        }
    }

    private func record(_ method: HTTPRequest.Method, _ path: String, _ body: String, status: Int, refusal: String?) {
        state.withLockedValue {
            $0.recorded.append(
                Recorded(
                    method: method.rawValue, path: path, body: body, status: status, refusal: refusal,
                    receivedAt: Date().timeIntervalSince1970))
        }
    }

    static func isTransactionId(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64 && id.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }

    static let invalidTransactionId = appleError(.badRequest, 4_000_006, "Invalid transaction id.")

    static func appleError(_ status: HTTPResponse.Status, _ code: Int, _ message: String, fields: HTTPFields = [:]) -> Response {
        var response = json(status, #"{"errorCode": \#(code), "errorMessage": "\#(message)"}"#)
        response.headers.append(contentsOf: fields)
        return response
    }

    static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

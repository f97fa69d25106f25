import DepotOutboundHTTP
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A client for the purchase calls of the Google Play Developer API (androidpublisher v3) for one app: every
/// request carries a bearer token from `GooglePlayAccessTokens` and has a timeout; Google's error bodies become
/// typed errors. One attempt per call: the caller (the outbox, the voided-purchase poll) decides when to retry.
public struct GooglePlayDeveloperAPIClient: Sendable {
    /// Google's own base URL.
    public static let googleBaseURL = "https://androidpublisher.googleapis.com"

    private let packageName: String
    private let baseURL: String
    private let tokens: GooglePlayAccessTokens
    private let http: HTTPClient
    private let timeout: TimeAmount
    private let clock: @Sendable () -> Int64

    /// A client for the app `packageName`. `clock` gives seconds since 1970 (token lifetimes).
    public init(
        packageName: String, tokens: GooglePlayAccessTokens, baseURL: String = Self.googleBaseURL, http: HTTPClient = OutboundHTTP.client,
        timeoutSeconds: Int64 = 30, clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) {
        self.packageName = packageName
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.tokens = tokens
        self.http = http
        self.timeout = .seconds(max(1, timeoutSeconds))
        self.clock = clock
    }

    /// `purchases.products.acknowledge`: a one-time product was delivered.
    public func acknowledgeProduct(productId: String, purchaseToken: String) async throws(GooglePlayAPIError) {
        _ = try await send(.POST, purchasePath("products", productId, purchaseToken) + ":acknowledge", body: Data("{}".utf8))
    }

    /// `purchases.products.consume`: a consumable was delivered and may be bought again.
    public func consumeProduct(productId: String, purchaseToken: String) async throws(GooglePlayAPIError) {
        _ = try await send(.POST, purchasePath("products", productId, purchaseToken) + ":consume", body: nil)
    }

    /// `purchases.subscriptions.acknowledge`: a subscription purchase was delivered.
    public func acknowledgeSubscription(subscriptionId: String, purchaseToken: String) async throws(GooglePlayAPIError) {
        _ = try await send(.POST, purchasePath("subscriptions", subscriptionId, purchaseToken) + ":acknowledge", body: Data("{}".utf8))
    }

    /// `purchases.products.get`: a one-time purchase as Google holds it now.
    public func productPurchase(productId: String, purchaseToken: String) async throws(GooglePlayAPIError) -> GooglePlayProductPurchase {
        let data = try await send(.GET, purchasePath("products", productId, purchaseToken), body: nil)
        guard let purchase = try? JSONDecoder().decode(GooglePlayProductPurchase.self, from: data) else {
            throw GooglePlayAPIError(.google(status: 200, reason: nil, message: "a product purchase that cannot be read"))
        }
        return purchase
    }

    /// `purchases.productsv2.getproductpurchasev2`: a one-time purchase's line items, with the purchase option each
    /// was bought with (buy, rent, pre-order), which `purchases.products.get` does not tell.
    public func productPurchaseV2(purchaseToken: String) async throws(GooglePlayAPIError) -> GooglePlayProductPurchaseV2 {
        guard !purchaseToken.isEmpty, purchaseToken.utf8.count <= 4096, ![".", ".."].contains(purchaseToken) else {
            throw GooglePlayAPIError(.configuration("a purchase without a token cannot be asked about"))
        }
        let data = try await send(
            .GET, applicationPath() + "/purchases/productsv2/tokens/" + Self.percentEncoded(purchaseToken), body: nil)
        guard let purchase = try? JSONDecoder().decode(GooglePlayProductPurchaseV2.self, from: data) else {
            throw GooglePlayAPIError(.google(status: 200, reason: nil, message: "a product purchase (v2) that cannot be read"))
        }
        return purchase
    }

    /// `purchases.subscriptions.get`: a subscription purchase as Google holds it now (its current period).
    public func subscriptionPurchase(
        subscriptionId: String, purchaseToken: String
    ) async throws(GooglePlayAPIError)
        -> GooglePlaySubscriptionPurchase
    {
        let data = try await send(.GET, purchasePath("subscriptions", subscriptionId, purchaseToken), body: nil)
        guard let purchase = try? JSONDecoder().decode(GooglePlaySubscriptionPurchase.self, from: data) else {
            throw GooglePlayAPIError(.google(status: 200, reason: nil, message: "a subscription purchase that cannot be read"))
        }
        return purchase
    }

    /// `purchases.voidedpurchases.list`: one page of the purchases voided between the two times (milliseconds
    /// since 1970; without an end, until now by Google's clock, which may not be passed), one-time products and,
    /// with `includeSubscriptions`, subscriptions.
    public func voidedPurchases(
        startTimeMillis: Int64, endTimeMillis: Int64? = nil, pageToken: String?, includeSubscriptions: Bool
    )
        async throws(GooglePlayAPIError) -> GooglePlayVoidedPurchasePage
    {
        // Quantity-based partial refunds are listed too (`refundType` 2 with `voidedQuantity`): one unit of several.
        var query =
            "startTime=\(startTimeMillis)&maxResults=1000&type=\(includeSubscriptions ? 1 : 0)&includeQuantityBasedPartialRefund=true"
        if let endTimeMillis { query += "&endTime=\(endTimeMillis)" }
        if let pageToken { query += "&token=" + Self.percentEncoded(pageToken) }
        let data = try await send(.GET, applicationPath() + "/purchases/voidedpurchases?" + query, body: nil)
        guard let page = try? JSONDecoder().decode(GooglePlayVoidedPurchasePage.self, from: data) else {
            throw GooglePlayAPIError(.google(status: 200, reason: nil, message: "a voided purchases page that cannot be read"))
        }
        return page
    }

    /// `orders.reviewrefund`: the developer's answer to a pending refund review of the order `orderId`. Google keeps
    /// the first answer to a review and answers later ones with 200 all the same.
    public func reviewRefund(orderId: String, _ review: GooglePlayRefundReview) async throws(GooglePlayAPIError) {
        guard !orderId.isEmpty, orderId.utf8.count <= 256, ![".", ".."].contains(orderId) else {
            throw GooglePlayAPIError(.configuration("an order without a usable id cannot be answered for"))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let body = try? encoder.encode(review) else {
            throw GooglePlayAPIError(.configuration("the refund review answer could not be encoded"))
        }
        _ = try await send(.POST, applicationPath() + "/orders/" + Self.percentEncoded(orderId) + ":reviewrefund", body: body)
    }

    private func applicationPath() -> String {
        "/androidpublisher/v3/applications/" + Self.percentEncoded(packageName)
    }

    private func purchasePath(_ kind: String, _ productId: String, _ token: String) throws(GooglePlayAPIError) -> String {
        guard !productId.isEmpty, !token.isEmpty, token.utf8.count <= 4096, productId.utf8.count <= 256,
            ![".", ".."].contains(productId), ![".", ".."].contains(token)
        else {
            throw GooglePlayAPIError(.configuration("a purchase without a product id or token cannot be asked about"))
        }
        return applicationPath() + "/purchases/\(kind)/" + Self.percentEncoded(productId) + "/tokens/" + Self.percentEncoded(token)
    }

    private func send(_ method: HTTPMethod, _ path: String, body: Data?) async throws(GooglePlayAPIError) -> Data {
        let token = try await tokens.token(now: clock())
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Depot")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        } else if method == .POST {
            request.headers.add(name: "Content-Length", value: "0")
        }
        let (status, data, retryAfter) = try await GooglePlayHTTP.execute(request, http: http, timeout: timeout)
        guard (200...299).contains(status) else {
            if status == 401 { await tokens.forget() }
            let error = GooglePlayErrorBody.decode(data)
            throw GooglePlayAPIError(.google(status: status, reason: error.reason, message: error.message), retryAfter: retryAfter)
        }
        return data
    }

    /// A path segment or query value with everything but RFC 3986's unreserved characters percent-encoded.
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0xF)]))
            }
        }
        return out
    }
}

import DepotOutboundHTTP
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A client for the App Store Server API (https://developer.apple.com/documentation/appstoreserverapi):
/// every request carries a fresh-enough ES256 token, goes to the production or sandbox base URL by the
/// transaction's environment, has a timeout, and is retried on 429, 5xx, transport failures and timeouts
/// per its `AppStoreAPIRetryPolicy`. Apple's error bodies (`errorCode`, `errorMessage`) become typed errors.
public struct AppStoreServerAPIClient: Sendable {
    /// Where the API lives, per App Store environment (overridable for tests and for a local double). An
    /// environment without a base URL is never sent to Apple: `Xcode` and `LocalTesting` have no server.
    public struct BaseURLs: Sendable, Equatable {
        /// Base URL by environment name (`Production`, `Sandbox`, ...), without a trailing slash.
        public var byEnvironment: [String: String]

        /// Apple's own: production and sandbox.
        public static let apple = BaseURLs([
            "Production": "https://api.storekit.itunes.apple.com", "Sandbox": "https://api.storekit-sandbox.itunes.apple.com",
        ])

        /// Creates base URLs from a map of environment to URL.
        public init(_ byEnvironment: [String: String]) {
            self.byEnvironment = byEnvironment.mapValues { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        }

        /// Creates base URLs for production and sandbox.
        public init(production: String, sandbox: String) {
            self.init(["Production": production, "Sandbox": sandbox])
        }

        /// The base URL for an environment, or nil when that environment is never sent to Apple.
        public func url(for environment: String) -> String? { byEnvironment[environment] }
    }

    private let http: HTTPClient
    private let signer: AppStoreAPITokenSigner
    private let baseURLs: BaseURLs
    private let timeout: TimeAmount
    private var retry: AppStoreAPIRetryPolicy
    private let clock: @Sendable () -> Int64
    private let sleep: @Sendable (Double) async -> Void
    private let random: @Sendable () -> Double

    /// Creates a client. `clock` gives seconds since 1970 (token times); `sleep` waits between attempts.
    public init(
        http: HTTPClient = OutboundHTTP.client, signer: AppStoreAPITokenSigner, baseURLs: BaseURLs = .apple,
        timeoutSeconds: Int64 = 30, retry: AppStoreAPIRetryPolicy = AppStoreAPIRetryPolicy(),
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) },
        sleep: @escaping @Sendable (Double) async -> Void = { try? await Task.sleep(for: .seconds($0)) },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.http = http
        self.signer = signer
        self.baseURLs = baseURLs
        self.timeout = .seconds(max(1, timeoutSeconds))
        self.retry = retry
        self.clock = clock
        self.sleep = sleep
        self.random = random
    }

    /// The same client with another retry policy.
    public func retrying(_ policy: AppStoreAPIRetryPolicy) -> AppStoreServerAPIClient {
        var copy = self
        copy.retry = policy
        return copy
    }

    /// Finish Transaction (`POST /inApps/v1/transactions/{transactionId}/finish`, API 1.20): tells the App
    /// Store that Depot delivered the purchase, so the transaction is finished even if the app never calls
    /// StoreKit's `finish()`.
    public func finishTransaction(_ transactionId: String, environment: String) async throws(AppStoreAPIError) {
        _ = try await send(.POST, "/inApps/v1/transactions/\(try Self.pathSegment(transactionId))/finish", environment: environment)
    }

    /// Get Transaction Info (`GET /inApps/v1/transactions/{transactionId}`): the App Store's signed
    /// transaction (JWS) as it stands now.
    public func transactionInfo(_ transactionId: String, environment: String) async throws(AppStoreAPIError) -> String {
        let body = try await send(.GET, "/inApps/v1/transactions/\(try Self.pathSegment(transactionId))", environment: environment)
        struct Answer: Decodable { var signedTransactionInfo: String }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: body) else {
            throw AppStoreAPIError(.apple(status: 200, errorCode: nil, errorMessage: "an answer without signedTransactionInfo"))
        }
        return answer.signedTransactionInfo
    }

    /// Sends one request with retries; the answer's body on a 2xx.
    func send(_ method: HTTPMethod, _ path: String, environment: String, body: Data? = nil) async throws(AppStoreAPIError) -> Data {
        let base = try baseURL(environment)
        var attempt = 1
        while true {
            let (error, retryAfter): (AppStoreAPIError, String?)
            do {
                return try await once(method, base + path, body: body, attempt: attempt)
            } catch let failure {
                (error, retryAfter) = (failure.error, failure.retryAfter)
            }
            guard let wait = retry.delay(after: error, attempt: attempt, retryAfter: retryAfter, random: random) else {
                throw error
            }
            await sleep(wait)
            attempt += 1
        }
    }

    private struct Failure: Error {
        var error: AppStoreAPIError
        var retryAfter: String?
    }

    private func once(_ method: HTTPMethod, _ url: String, body: Data?, attempt: Int) async throws(Failure) -> Data {
        let token: String
        do {
            token = try await signer.token(now: clock())
        } catch {
            throw Failure(error: error, retryAfter: nil)
        }
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Depot")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let status: Int
        let payload: ByteBuffer
        let retryAfter: String?
        do {
            let response = try await http.execute(request, timeout: timeout)
            status = Int(response.status.code)
            retryAfter = response.headers.first(name: "Retry-After")
            payload = try await response.body.collect(upTo: 1 << 20)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            throw Failure(error: AppStoreAPIError(.timeout, attempts: attempt), retryAfter: nil)
        } catch {
            throw Failure(error: AppStoreAPIError(.transport("\(error)"), attempts: attempt), retryAfter: nil)
        }
        let data = Data(payload.readableBytesView)
        guard (200...299).contains(status) else {
            struct AppleError: Decodable {
                var errorCode: Int?
                var errorMessage: String?
            }
            let decoded = try? JSONDecoder().decode(AppleError.self, from: data)
            throw Failure(
                error: AppStoreAPIError(
                    .apple(status: status, errorCode: decoded?.errorCode, errorMessage: decoded?.errorMessage), attempts: attempt,
                    retryAfter: retryAfter),
                retryAfter: retryAfter)
        }
        return data
    }

    private func baseURL(_ environment: String) throws(AppStoreAPIError) -> String {
        guard let url = baseURLs.url(for: environment) else {
            throw AppStoreAPIError(.configuration("no App Store Server API base URL is configured for the \(environment) environment"))
        }
        return url
    }

    /// A transaction id as a path segment: App Store ids are digits; anything else is refused, never encoded.
    static func pathSegment(_ id: String) throws(AppStoreAPIError) -> String {
        guard !id.isEmpty, id.utf8.count <= 64,
            id.utf8.allSatisfy({
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D || $0 == 0x2E
                    || $0 == 0x5F
            })
        else {
            throw AppStoreAPIError(.configuration("\"\(id)\" is not a transaction id the API can be asked about"))
        }
        return id
    }
}

/// Why a call to the App Store Server API did not succeed.
public struct AppStoreAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure it was.
    public enum Kind: Sendable, Equatable {
        /// Apple answered with an error status; `errorCode` and `errorMessage` come from its JSON body
        /// when it had one.
        case apple(status: Int, errorCode: Int?, errorMessage: String?)
        /// The request could not be sent or its answer read (connection refused, reset, TLS, ...).
        case transport(String)
        /// No answer within the configured timeout.
        case timeout
        /// The configuration cannot sign requests (an unreadable private key, a missing setting).
        case configuration(String)
    }

    /// What went wrong.
    public var kind: Kind
    /// How many attempts were made before giving up.
    public var attempts: Int
    /// The last answer's `Retry-After` field, if it had one: how long Apple asked to wait.
    public var retryAfter: String?

    /// Creates an error.
    public init(_ kind: Kind, attempts: Int = 1, retryAfter: String? = nil) {
        self.kind = kind
        self.attempts = attempts
        self.retryAfter = retryAfter
    }

    /// Whether trying again later may succeed: 429, 5xx, transport failures and timeouts.
    public var isRetryable: Bool {
        switch kind {
        case .apple(let status, _, _): status == 429 || (500...599).contains(status)
        case .transport, .timeout: true
        case .configuration: false
        }
    }

    /// The error for people.
    public var description: String {
        switch kind {
        case .apple(let status, let code, let message):
            "App Store Server API answered \(status)" + (code.map { " errorCode \($0)" } ?? "")
                + (message.map { ": \($0)" } ?? "") + " after \(attempts) attempt(s)"
        case .transport(let reason): "App Store Server API unreachable: \(reason) after \(attempts) attempt(s)"
        case .timeout: "App Store Server API did not answer in time after \(attempts) attempt(s)"
        case .configuration(let reason): "App Store Server API not usable: \(reason)"
        }
    }
}

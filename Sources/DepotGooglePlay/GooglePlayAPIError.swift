/// Why a call to the Google Play Developer API (or its OAuth token endpoint) did not succeed.
public struct GooglePlayAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure it was.
    public enum Kind: Sendable, Equatable {
        /// Google answered with an error status; `reason` and `message` come from its JSON error body when it
        /// had one (`error.errors[0].reason`, `error.message`; the token endpoint's `error`, `error_description`).
        case google(status: Int, reason: String?, message: String?)
        /// The request could not be sent or its answer read (connection refused, reset, TLS, ...).
        case transport(String)
        /// No answer within the configured timeout.
        case timeout
        /// The configuration cannot sign or address requests (an unreadable key file, a bad base URL).
        case configuration(String)
    }

    /// What went wrong.
    public var kind: Kind
    /// The answer's `Retry-After` field, if it had one: how long Google asked to wait.
    public var retryAfter: String?

    /// Creates an error.
    public init(_ kind: Kind, retryAfter: String? = nil) {
        self.kind = kind
        self.retryAfter = retryAfter
    }

    /// Whether trying again later may succeed: 401 (a token being renewed, a clock set right), 408, 429, 5xx,
    /// transport failures and timeouts.
    public var isRetryable: Bool {
        switch kind {
        case .google(let status, _, _): status == 401 || status == 408 || status == 429 || (500...599).contains(status)
        case .transport, .timeout: true
        case .configuration: false
        }
    }

    /// The error for people.
    public var description: String {
        switch kind {
        case .google(let status, let reason, let message):
            "Google Play Developer API answered \(status)" + (reason.map { " (\($0))" } ?? "") + (message.map { ": \($0)" } ?? "")
        case .transport(let reason): "Google Play Developer API unreachable: \(reason)"
        case .timeout: "Google Play Developer API did not answer in time"
        case .configuration(let reason): "Google Play Developer API not usable: \(reason)"
        }
    }
}

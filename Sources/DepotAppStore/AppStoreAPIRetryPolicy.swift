/// When to try a failed call again: 429 and 5xx answers, transport failures and timeouts, with exponential
/// backoff and full jitter, honouring a `Retry-After` Apple sends; other answers are final.
public struct AppStoreAPIRetryPolicy: Sendable {
    /// Most attempts per call, the first included.
    public var maxAttempts: Int
    /// The first backoff, in seconds; each later one doubles, up to `maxDelaySeconds`.
    public var baseDelaySeconds: Double
    /// The longest wait between attempts, in seconds (a longer `Retry-After` gives up instead).
    public var maxDelaySeconds: Double

    /// Creates a policy.
    public init(maxAttempts: Int = 4, baseDelaySeconds: Double = 0.5, maxDelaySeconds: Double = 30) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelaySeconds = max(0, baseDelaySeconds)
        self.maxDelaySeconds = max(0, maxDelaySeconds)
    }

    /// The seconds to wait before attempt `attempt + 1` after `error` on attempt `attempt` (1-based), or nil
    /// to give up. `retryAfter` is the answer's `Retry-After` field; `random` yields a value in 0..<1.
    public func delay(after error: AppStoreAPIError, attempt: Int, retryAfter: String?, random: () -> Double) -> Double? {
        guard error.isRetryable, attempt < maxAttempts else { return nil }
        if let retryAfter, let seconds = Self.retryAfterSeconds(retryAfter) {
            return seconds <= maxDelaySeconds ? seconds : nil
        }
        let exponent = min(Double(attempt - 1), 30)
        let ceiling = min(maxDelaySeconds, baseDelaySeconds * pow2(exponent))
        return ceiling * min(max(random(), 0), 1)
    }

    /// `Retry-After` as delay-seconds (RFC 9110 §10.2.3); an HTTP-date is not used by Apple and is ignored.
    public static func retryAfterSeconds(_ field: String) -> Double? {
        let trimmed = field.trimmingSpaces
        guard !trimmed.isEmpty, trimmed.utf8.count <= 9, trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        return Double(trimmed)
    }

    private func pow2(_ exponent: Double) -> Double {
        var value = 1.0
        for _ in 0..<Int(exponent) { value *= 2 }
        return value
    }
}

extension String {
    fileprivate var trimmingSpaces: Substring {
        var slice = Substring(self)
        while slice.first == " " || slice.first == "\t" { slice = slice.dropFirst() }
        while slice.last == " " || slice.last == "\t" { slice = slice.dropLast() }
        return slice
    }
}

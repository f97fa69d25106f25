/// When one transaction's redemptions look like sharing, and what is done about it: a transaction redeemed by
/// more accounts or from more addresses than allowed within the window is flagged, and may then redeem at
/// most once per `slowDownSeconds`.
public struct IrregularActivityPolicy: Sendable, Equatable {
    /// Window in seconds over which distinct redeemers are counted.
    public var windowSeconds: Int64
    /// Most distinct app account tokens per transaction within the window.
    public var maxAccountTokens: Int
    /// Most distinct client addresses per transaction within the window.
    public var maxClientAddresses: Int
    /// Seconds a flagged transaction waits between redemptions.
    public var slowDownSeconds: Int64
    /// Restores one client address may make per `restoreWindowSeconds` (each instance counts its own).
    public var restoresPerClient: Int = 20
    /// The window over which `restoresPerClient` refills.
    public var restoreWindowSeconds: Int64 = 60

    /// A policy.
    public init(
        windowSeconds: Int64, maxAccountTokens: Int, maxClientAddresses: Int, slowDownSeconds: Int64,
        restoresPerClient: Int = 20, restoreWindowSeconds: Int64 = 60
    ) {
        self.windowSeconds = windowSeconds
        self.maxAccountTokens = maxAccountTokens
        self.maxClientAddresses = maxClientAddresses
        self.slowDownSeconds = slowDownSeconds
        self.restoresPerClient = restoresPerClient
        self.restoreWindowSeconds = restoreWindowSeconds
    }

    /// What the policy says of a redemption at `now`, given the distinct accounts and addresses seen within the
    /// window (this attempt included) and the attempt before this one.
    public func verdict(accounts: Int, addresses: Int, previousAttempt: Int64?, now: Int64) -> IrregularActivityVerdict {
        guard accounts > maxAccountTokens || addresses > maxClientAddresses else { return .regular }
        guard let last = previousAttempt, now - last < slowDownSeconds else { return .flagged }
        return .slowedDown(retryAfterSeconds: slowDownSeconds - (now - last))
    }
}

/// The irregular-activity policy's word on one redemption.
public enum IrregularActivityVerdict: Sendable, Equatable {
    /// Nothing irregular.
    case regular
    /// Over a threshold: flagged, but the redemption goes ahead (its last one was long enough ago).
    case flagged
    /// Over a threshold and too soon after the last redemption: refused until the wait passes.
    case slowedDown(retryAfterSeconds: Int64)
}

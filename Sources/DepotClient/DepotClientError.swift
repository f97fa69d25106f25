/// Why a call of the SDK failed: a stable code, a sentence for people and, when the server answered
/// with an error, its status and the `code` of its `{"error": {"code", "message"}}` body.
public struct DepotClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable, machine-readable reason. A struct over a private enum, so codes can be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String {
            case network, server, badResponse = "bad-response", digestMismatch = "digest-mismatch"
            case unsafeBundle = "unsafe-bundle", bundleMismatch = "bundle-mismatch", io, cancelled
            case invalidArgument = "invalid-argument"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The server could not be reached, or the connection broke and retrying did not help.
        public static let network = Code(.network)
        /// The server answered with an error (see `status` and `serverCode`).
        public static let server = Code(.server)
        /// The server's answer is not what the protocol says (unreadable JSON, a wrong `Content-Range`).
        public static let badResponse = Code(.badResponse)
        /// The downloaded bundle's sha256 is not the digest the server promised; nothing was unpacked.
        public static let digestMismatch = Code(.digestMismatch)
        /// The bundle holds an entry that would escape its folder (absolute path, `..`, a link) or breaks
        /// the archive limits; nothing was installed.
        public static let unsafeBundle = Code(.unsafeBundle)
        /// The bundle does not fit what it should be applied to: its `ContentInfo.plist` names another
        /// content, or a delta's base is not the version installed.
        public static let bundleMismatch = Code(.bundleMismatch)
        /// Reading or writing local files failed.
        public static let io = Code(.io)
        /// The download was cancelled.
        public static let cancelled = Code(.cancelled)
        /// An argument given to the SDK cannot be used (an unreadable URL, an identifier that is not a path name).
        public static let invalidArgument = Code(.invalidArgument)

        /// The stable string form, e.g. `"digest-mismatch"`.
        public var rawValue: String { base.rawValue }
        /// The same as `rawValue`.
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// A sentence for people.
    public let message: String
    /// The HTTP status, when the server answered with an error.
    public let status: Int?
    /// The server's error code (`grant-expired`, `revoked`, ...), when it sent one.
    public let serverCode: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, status: Int? = nil, serverCode: String? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.serverCode = serverCode
    }

    /// The message, with the server's status and code when there are some.
    public var description: String {
        guard let status else { return message }
        return "\(message) (HTTP \(status)\(serverCode.map { ", \($0)" } ?? ""))"
    }

    /// True for the server's answer to an expired grant: redeeming again gives a fresh one.
    public var isExpiredGrant: Bool { status == 403 && serverCode == "grant-expired" }
}

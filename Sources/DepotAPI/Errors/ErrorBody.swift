/// Every error answer's body: `{"error": {"code": "...", "message": "...", "requestId": "..."}}`.
public struct ErrorBody: Sendable, Equatable, Codable {
    /// The error itself.
    public struct Detail: Sendable, Equatable, Codable {
        /// The stable code from `ErrorCode`'s table (a client may meet codes newer than its table).
        public var code: String
        /// A sentence for people.
        public var message: String
        /// The id of the request the error answers, when the server gave it one.
        public var requestId: String?

        /// An error detail.
        public init(code: String, message: String, requestId: String? = nil) {
            self.code = code
            self.message = message
            self.requestId = requestId
        }
    }

    /// The error.
    public var error: Detail

    /// An error body.
    public init(error: Detail) {
        self.error = error
    }
}

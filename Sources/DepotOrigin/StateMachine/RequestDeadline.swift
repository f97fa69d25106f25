import NIOHTTP1

/// The rule for a request that has not fully arrived when its deadline passes: a whole request (head and
/// body) must arrive within `server.requestTimeoutSeconds` of its first byte; an upload's body instead
/// within that time of its previous bytes (see ``Policy``), once its route accepted the publisher key.
///
/// Pure: the bundle handler describes the connection and carries out the decision.
enum RequestDeadline {
    /// How a request's deadline runs.
    enum Policy: Equatable {
        /// The whole request must arrive within the timeout of its first byte.
        case wholeRequest
        /// The head must arrive within the timeout of its first byte, then each part of the body within
        /// the timeout of the part before: an upload that keeps sending is never cut, one that stalls is.
        case progress
    }

    /// The paths whose bodies may take longer than the timeout as long as they keep arriving.
    static let progressPrefixes = ["/v1/publisher/uploads"]

    /// The policy a request may earn: `progress` for bodies sent to the upload routes (PATCH, POST), applied only
    /// once the route accepted the request's publisher key (until then, and for every other request, `wholeRequest`).
    static func policy(method: HTTPMethod, uri: String) -> Policy {
        guard method == .PATCH || method == .POST else { return .wholeRequest }
        let path = BundleRequestTarget.pathAndQuery(of: Substring(uri).utf8)
        for prefix in progressPrefixes where path.starts(with: prefix.utf8) {
            let rest = path.dropFirst(prefix.utf8.count)
            if rest.isEmpty || rest.first == UInt8(ascii: "/") || rest.first == UInt8(ascii: "?") { return .progress }
        }
        return .wholeRequest
    }

    /// Whether to answer `100 Continue` (RFC 9110 §10.1.1): for an HTTP/1.1 upload body (the progress policy) sent
    /// with `Expect: 100-continue`, when no earlier answer on the connection is still due (an interim answer may not
    /// overtake one). It is sent once the route accepted the key; a request refused before gets only its final answer.
    static func sendsContinue(_ head: HTTPRequestHead, earlierAnswersPending: Bool) -> Bool {
        guard head.version == .http1_1, !earlierAnswersPending, policy(method: head.method, uri: head.uri) == .progress
        else { return false }
        return head.headers["expect"].contains { $0.lowercased() == "100-continue" }
    }

    /// What to do when the deadline passes while the request is still arriving.
    enum Decision: Equatable {
        /// Nothing was answered on the request: answer 408 `request-timeout` and close.
        case answerTimeoutAndClose
        /// A response is being written (a download, or an earlier pipelined answer): let it finish, then close
        /// instead of reading further. A response in progress is never cut by the deadline.
        case closeAfterResponse
        /// The request was already answered (the bundle handler answers on the head): close.
        case close
    }

    /// Decides, given whether a response is being written on the connection, whether earlier pipelined
    /// requests still wait for their answers, and whether the late request itself was answered.
    static func decide(writingResponse: Bool, earlierAnswersPending: Bool, answered: Bool) -> Decision {
        if writingResponse || earlierAnswersPending { return .closeAfterResponse }
        if answered { return .close }
        return .answerTimeoutAndClose
    }
}

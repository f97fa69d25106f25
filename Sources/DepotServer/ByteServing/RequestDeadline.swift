/// The rule for a request that has not fully arrived when its deadline passes: a whole request (head and
/// body) must arrive within `server.requestTimeoutSeconds` of its first byte.
///
/// Pure: the bundle handler describes the connection and carries out the decision.
enum RequestDeadline {
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

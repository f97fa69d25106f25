import NIOCore

/// Closing a connection after an error answer as nginx's lingering close does: the output first, so that the
/// client reads the answer (request bytes left unread at a full close make the kernel reset the connection, and
/// a reset can make the client lose the answer), then the whole connection once the client closes its side or
/// `time` passed. What arrives meanwhile is read and dropped by the caller.
enum LingeringClose {
    /// How long a connection closed after an error answer keeps reading (and dropping) what the client sends.
    static let time = TimeAmount.seconds(2)

    /// Closes the output of `context`'s channel now and the whole channel after `time`.
    static func close(context: ChannelHandlerContext) {
        let outputClosed = context.eventLoop.makePromise(of: Void.self)
        context.close(mode: .output, promise: outputClosed)
        outputClosed.futureResult.assumeIsolated().whenComplete { result in
            guard case .success = result else {
                context.close(promise: nil)
                return
            }
            context.eventLoop.assumeIsolated().scheduleTask(in: time) { context.close(promise: nil) }
        }
    }
}

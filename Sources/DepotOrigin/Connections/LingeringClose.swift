import NIOCore

/// Closing a connection after an error answer as nginx's lingering close does: the output first, so that the
/// client reads the answer (request bytes left unread at a full close make the kernel reset the connection, and
/// a reset can make the client lose the answer), then the whole connection once the client closes its side, once
/// it sent nothing for ``quietTime``, or after ``longestTime`` at most. What arrives meanwhile is read and dropped
/// by the handler that owns the close; it reports each arrival with ``noteArrival(now:)``, so that a client still
/// sending the rest of a refused body over a slow or loaded link is not reset in the middle of it.
///
/// Bound to the connection's event loop.
final class LingeringClose {
    /// How long the client may send nothing before the connection closes (nginx's `lingering_timeout`).
    static let quietTime = TimeAmount.seconds(5)
    /// How long a lingering connection is kept at most, however the client sends (nginx's `lingering_time`).
    static let longestTime = TimeAmount.seconds(30)

    private var lastArrival: NIODeadline?
    private var givesUpAt: NIODeadline?

    /// A close not yet started.
    init() {}

    /// Whether the close has started: from then on, what arrives is dropped.
    var hasStarted: Bool { givesUpAt != nil }

    /// Bytes arrived from the client: the quiet time starts again.
    func noteArrival(now: NIODeadline) {
        if hasStarted { lastArrival = now }
    }

    /// Closes the output of `context`'s channel now and the whole channel later, as described above.
    func start(context: ChannelHandlerContext) {
        guard !hasStarted else { return }
        let now = context.eventLoop.now
        (lastArrival, givesUpAt) = (now, now + Self.longestTime)
        let outputClosed = context.eventLoop.makePromise(of: Void.self)
        context.close(mode: .output, promise: outputClosed)
        outputClosed.futureResult.assumeIsolated().whenComplete { result in
            guard case .success = result else {
                context.close(promise: nil)
                return
            }
            self.closeWhenDue(context: context)
        }
    }

    private func closeWhenDue(context: ChannelHandlerContext) {
        guard let lastArrival, let givesUpAt else { return }
        let now = context.eventLoop.now
        let due = min(lastArrival + Self.quietTime, givesUpAt)
        guard now < due else {
            context.close(promise: nil)
            return
        }
        context.eventLoop.assumeIsolated().scheduleTask(in: due - now) { self.closeWhenDue(context: context) }
    }
}

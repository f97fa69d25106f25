import DepotOrigin
import HummingbirdCore
import Logging
import NIOCore

/// A server child channel that passes each new connection through a `ConnectionGate`: admitted ones are set
/// up as `base` sets them up and give their place back when they close; refused ones are answered 503 or 429
/// by a `ConnectionRefusalHandler` in front of everything and closed, without reaching a decoder or a route.
struct ConnectionLimitedChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    /// The channel every admitted connection gets.
    let base: Base
    /// The counts and limits.
    let gate: ConnectionGate
    /// Seconds since 1970, for the refusal's `Date`.
    let clock: @Sendable () -> Int64

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = channel.remoteAddress?.ipAddress
        let admission = gate.admit(address: address)
        let gate = self.gate
        let setUp = base.setup(channel: channel, logger: logger)
        guard admission == .admitted else {
            logger.debug(
                "connection refused", metadata: ["address": "\(address ?? "-")", "reason": "\(admission)"])
            let now = clock()
            return setUp.flatMapThrowing { value in
                try channel.pipeline.syncOperations.addHandler(
                    ConnectionRefusalHandler(refusing: admission, now: now), position: .first)
                return value
            }
        }
        channel.closeFuture.whenComplete { _ in gate.release(address: address) }
        return setUp
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

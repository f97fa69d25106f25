import HummingbirdCore
import Logging
import NIOCore
import NIOSSL

/// A server child channel that, when `server.tls` is configured, puts NIOSSL's server handler in front of
/// everything `base` set up, so that every handler of the connection (the refusal of the connection gate, the
/// request recognizer, the decoders, the bundle handler) reads and writes plaintext.
///
/// The handler goes in after `base`'s setup, at the very front: `base`'s own handlers that must come first
/// (``ConnectionRefusalHandler``, ``RequestRecognizer``) are then second to it. An accepted channel is set up before
/// it is registered, so nothing is read or written before the handler is in place.
struct TLSChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    /// The channel behind TLS (or without it).
    let base: Base
    /// The server context, nil for plain HTTP.
    let context: NIOSSLContext?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard let context else { return base.setup(channel: channel, logger: logger) }
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context), position: .first)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

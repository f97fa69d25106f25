import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// `TCP_CORK` around an answer with file data: its head waits in the kernel for the file's first bytes, and both leave
/// in one segment, as nginx's `tcp_nopush` sends them. Whatever the body's size: a head sent alone costs the client a
/// wake-up and a read of its own for every answer, and on a shared machine the client's CPU is the server's.
extension BundleChannelHandler {
    /// Whether an answer with this body is corked: it has file parts (a body of buffers goes out in one write anyway).
    static func shouldCork(_ body: [BundleResponseWriter.BodyPart]) -> Bool {
        body.contains(where: \.isFile)
    }

    /// Sets `TCP_CORK` on the connection's socket; whether it was set (never, off Linux).
    func setCork(_ on: Bool) -> Bool {
        #if os(Linux)
        guard let socketOptions else { return false }
        return (try? socketOptions.setOption(ChannelOptions.tcpOption(NIOBSDSocket.Option(rawValue: TCP_CORK)), value: on ? 1 : 0))
            != nil
        #else
        return false
        #endif
    }
}

import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// `TCP_CORK` around an answer with a little file data: its head waits in the kernel for the file's first bytes, and
/// both leave in one segment, as nginx's `tcp_nopush` sends them.
extension BundleChannelHandler {
    /// The most file bytes an answer may have to be corked.
    static let corkedBytesLimit: Int64 = 1 << 20

    /// Whether an answer with this body is worth corking: it has file parts, of `corkedBytesLimit` bytes at most.
    static func shouldCork(_ body: [BundleResponseWriter.BodyPart]) -> Bool {
        var fileBytes: Int64 = 0
        for case .file(_, _, let length) in body { fileBytes += length }
        return fileBytes > 0 && fileBytes <= corkedBytesLimit
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

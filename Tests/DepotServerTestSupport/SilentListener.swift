import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A TCP port on loopback that takes connections into its backlog and never answers: a request sent there
/// waits until its timeout. It stands for an App Store that is slow to answer while its caller dies.
final class SilentListener: Sendable {
    /// The port.
    let port: Int
    private let descriptor: Int32

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            close(descriptor)
            throw Failure(description: "bind/listen: \(errno)")
        }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else {
            close(descriptor)
            throw Failure(description: "getsockname: \(errno)")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}

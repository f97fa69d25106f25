@testable import DepotServerTestSupport
import DepotCore
import Foundation
import Testing

@testable import DepotServer

#if canImport(Glibc)
import Glibc
#endif

/// A multipart bundle answer with file bytes is written corked (`TCP_CORK`), so that its head and first bytes leave
/// in one segment (an answer whose body starts with a file carries its first bytes in the head's buffer instead,
/// `FilePrefixTests`); the cork must be gone once the answer is written, or the answer's last bytes would wait for the
/// kernel's 200 ms cork timer. The server runs in the test's process, so its end of the connection is one of the
/// process's descriptors.
@Suite("TCP_CORK around a bundle answer")
struct CorkTests {
    /// The server's descriptor whose peer is 127.0.0.1:`peerPort`.
    static func serverSocket(peerPort: Int) -> Int32? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return nil }
        for name in names {
            guard let fd = Int32(name) else { continue }
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let found = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
            }
            if found == 0, address.sin_family == sa_family_t(AF_INET), Int(UInt16(bigEndian: address.sin_port)) == peerPort {
                return fd
            }
        }
        return nil
    }

    /// Whether `TCP_CORK` is set on a socket.
    static func isCorked(_ fd: Int32) -> Bool? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, Int32(IPPROTO_TCP), TCP_CORK, &value, &length) == 0 else { return nil }
        return value != 0
    }

    @Test func rangeWholeAndSmallAnswersLeaveTheSocketUncorked() async throws {
        try await LiveServer.with { server in
            let digest = try server.version("com.example.level1").digest
            let grant = server.grant(digest.hex)
            let client = try RawHTTPClient(port: server.port)
            // Accepted by now: the server answered on it.
            #expect(try await client.request(RawHTTPClient.get("/healthz")).status == 200)
            let serverEnd = try #require(Self.serverSocket(peerPort: client.localPort))
            #expect(Self.isCorked(serverEnd) == false)
            for fields in [["Range: bytes=0-65535"], ["Range: bytes=100-199"], ["Range: bytes=0-9,20-29"], []] {
                let answer = try await client.request(
                    RawHTTPClient.get("/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)"] + fields))
                #expect(answer.status == (fields.isEmpty ? 200 : 206), "\(fields)")
                #expect(Self.isCorked(serverEnd) == false, "\(fields)")
            }
        }
    }
}

@testable import DepotServerTestSupport
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `depot serve` with TLS sending a 32 MiB bundle, far more than the socket buffers hold, to a reader curl holds
/// to 8 MB/s: the bytes arrive whole, and the server's resident memory does not grow by anything like the bundle
/// (behind TLS the file is read into buffers one chunk at a time, each once the previous one was written).
@Suite("A slow reader of a large bundle over TLS")
struct TLSSlowReaderTests {
    static let bundleBytes = 32 << 20

    @Test func aLargeBundleReachesASlowReaderWithoutTheServerHoldingIt() async throws {
        try await ServePlace.onEngine(.sqlite) { binary, _ in
            let scratch = try ScratchDirectory("tlsSlowReader")
            defer { scratch.remove() }
            var random = SeededBytes(seed: 32)
            let packs = [
                LiveServer.PackSpec(
                    directory: "game/large", productId: "com.example.level1",
                    files: ["media/large.bin": random.bytes(Self.bundleBytes)])
            ]
            let members = try TestCertificates().write(into: scratch)
            try LiveServer.writeConfiguration(in: scratch, idleTimeoutSeconds: 120, serverSettings: members)
            try SharedInstances.write(packs, in: scratch)
            let place = ServePlace(scratch: scratch, databaseURL: nil)
            let server = try await DepotProcess.start(binary: binary, arguments: place.arguments, environment: [:])
            defer { server.killIfRunning() }
            let port = try #require(server.port)
            guard let curl = CurlOverTLS(base: "https://127.0.0.1:\(port)", scratch: scratch) else { return }

            let authority = try DevelopmentCertificateAuthority.loadOrCreate(directory: place.data + "/dev-ca")
            let builder = DevelopmentTransactionBuilder(
                bundleId: "com.example.depot.test", productId: "com.example.level1",
                type: DevelopmentTransactionBuilder.ProductType.nonConsumable)
            let redeemed = try await curl.post(
                "/v1/transactions", json: "{\"signedTransaction\": \"\(try authority.sign(payload: builder.payload()))\"}")
            #expect(redeemed.status == 200, "\(redeemed.object)")
            let download = try #require((redeemed.object["downloads"] as? [[String: Any]])?.first)
            let url = try #require(download["url"] as? String)
            let size = try #require(download["size"] as? Int)
            #expect(size > Self.bundleBytes)

            let digest = try #require(download["digest"] as? String)
            let before = try #require(Self.residentBytes(server.pid))
            let pid = server.pid
            // The server's resident memory, sampled until the transfer ends.
            let sampler = Task {
                var peak = before
                while !Task.isCancelled {
                    peak = max(peak, Self.residentBytes(pid) ?? 0)
                    try? await Task.sleep(for: .milliseconds(50))
                }
                return peak
            }
            let file = scratch.path + "/large.zip"
            let result = try await ExternalTool.run(
                curl.curl, curl.trust + ["-f", "--limit-rate", "8M", "-o", file, curl.base + url])
            sampler.cancel()
            let peak = await sampler.value
            #expect(result.status == 0, "\(result.error)")
            let received = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(received.count == size)
            let stored = place.data + "/bundles/\(digest.prefix(2))/\(digest).zip"
            #expect(received == FileManager.default.contents(atPath: stored))
            // Buffering the bundle would add at least its 32 MiB; reading it in chunks adds a few.
            #expect(peak - before < Self.bundleBytes / 2, "resident memory grew from \(before) to \(peak) bytes")

            server.kill(SIGTERM)
            let exit = await server.waitForExit(timeout: .seconds(60))
            #expect(exit?.status == 0, "\(server.logText)")
        }
    }

    /// `VmRSS` of a process, in bytes.
    static func residentBytes(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return line.split(separator: " ").compactMap { Int($0) }.first.map { $0 * 1024 }
    }
}

@testable import DepotServerTestSupport
import DepotCore
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

/// Downloads with the clients people use, each ending with a file identical to the bundle.
@Suite("Real clients resume and split downloads")
struct RealClientTests {
    @Test func curlResumesACutDownload() async throws {
        guard let curl = ExternalTool.require("curl") else { return }
        try await LiveServer.with { server in
            let digest = try server.version("com.example.level1").digest
            let url = "\(server.base)/v1/bundles/\(digest)?grant=\(server.grant(digest.hex))"
            let file = server.scratch.path + "/curl.zip"
            // A download cut after 1 MiB and a bit.
            let cut = try await ExternalTool.run(curl, ["-sS", "-f", "-r", "0-1050000", "-o", file, url])
            #expect(cut.status == 0, "\(cut.error)")
            #expect(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int == 1_050_001)
            let resumed = try await ExternalTool.run(curl, ["-sS", "-f", "-C", "-", "-o", file, url])
            #expect(resumed.status == 0, "\(resumed.error)")
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: file))) == (try server.bundleBytes(digest.hex)))
        }
    }

    @Test func wgetContinuesAPartialFile() async throws {
        guard let wget = ExternalTool.require("wget") else { return }
        try await LiveServer.with { server in
            let digest = try server.version("com.example.level1").digest
            let bytes = try server.bundleBytes(digest.hex)
            let file = server.scratch.path + "/wget.zip"
            try Data(bytes.prefix(777_777)).write(to: URL(fileURLWithPath: file))
            let result = try await ExternalTool.run(
                wget,
                [
                    "-q", "-c", "--header=Authorization: Bearer \(server.grant(digest.hex))", "-O", file,
                    "\(server.base)/v1/bundles/\(digest)",
                ])
            #expect(result.status == 0, "\(result.error)")
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: file))) == bytes)
        }
    }

    @Test func aria2cDownloadsInParallelSegments() async throws {
        guard let aria2c = ExternalTool.require("aria2c") else { return }
        try await LiveServer.with { server in
            let digest = try server.version("com.example.level1").digest
            let result = try await ExternalTool.run(
                aria2c,
                [
                    "-q", "-x4", "-s4", "--min-split-size=1M", "--allow-overwrite=true", "--file-allocation=none",
                    "-d", server.scratch.path, "-o", "aria.zip",
                    "--header=Authorization: Bearer \(server.grant(digest.hex))", "\(server.base)/v1/bundles/\(digest)",
                ])
            #expect(result.status == 0, "\(result.output) \(result.error)")
            let file = server.scratch.path + "/aria.zip"
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: file))) == (try server.bundleBytes(digest.hex)))
        }
    }

    /// curl's `--next` reuses the connection: a bundle HEAD, then routed GETs. Their answers once hung behind
    /// the HEAD (see `BundleServingChannel`); `--max-time` only bounds a failure.
    @Test func curlHeadOfABundleThenRoutedGetsOnOneConnection() async throws {
        guard let curl = ExternalTool.require("curl") else { return }
        try await LiveServer.with { server in
            let digest = try server.version("com.example.level1").digest
            let result = try await ExternalTool.run(
                curl,
                [
                    "-sS", "-I", "--max-time", "120", "\(server.base)/v1/bundles/\(digest)?grant=\(server.grant(digest.hex))",
                    "--next", "-sS", "--max-time", "120", "\(server.base)/healthz",
                    "--next", "-sS", "--max-time", "120", "-w", "\\n%{num_connects}", "\(server.base)/v1/products",
                ])
            #expect(result.status == 0, "\(result.error)")
            let lines = result.output.split(whereSeparator: \.isNewline).map(String.init)
            #expect(lines.first?.hasPrefix("HTTP/1.1 200") == true)
            #expect(lines.contains("ok"))
            #expect(lines.contains { $0.hasPrefix("{\"products\"") })
            // The last transfer reused the connection: it made no connection of its own.
            #expect(lines.last == "0")
        }
    }
}

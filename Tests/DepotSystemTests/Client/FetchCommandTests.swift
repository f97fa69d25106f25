@testable import DepotServerTestSupport
import DepotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `depot fetch` end to end against a live Depot, including a rerun after kill -9.
@Suite("depot fetch")
struct FetchCommandTests {
    static let binary = DepotProcess.debugBinary(filePath: (#filePath as NSString).deletingLastPathComponent)

    @Test func aFetchKilledMidDownloadResumesWhenRunAgain() async throws {
        guard let python = ExternalTool.require("python3") else { return }
        try await LiveServer.with { server in
            let proxy = try await CuttingProxy.start(
                python, upstream: server.port, mode: .stall, limit: 2 << 20, logPath: server.scratch.path + "/proxy.log")
            defer { proxy.stop() }
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            try server.scratch.write("transaction.jws", jws)
            let out = server.scratch.path + "/out"
            let arguments = [
                "fetch", "--server", "http://127.0.0.1:\(proxy.port)", "--transaction-file", server.scratch.path + "/transaction.jws",
                "--out", out,
            ]

            let first = Process()
            first.executableURL = URL(fileURLWithPath: Self.binary)
            first.arguments = arguments
            first.standardOutput = FileHandle.nullDevice
            first.standardError = FileHandle.nullDevice
            let firstExit = try ProcessExit.run(first)
            let partialName = { ClientTestSupport.names(in: out).first { $0.hasSuffix(".partial") } }
            try await eventually("the first run to write a megabyte", within: 120) {
                guard let name = partialName() else { return false }
                let size = (try? FileManager.default.attributesOfItem(atPath: out + "/" + name)[.size] as? NSNumber)??.intValue
                return (size ?? 0) >= 1 << 20
            }
            kill(first.processIdentifier, SIGKILL)
            #expect(await firstExit.wait().bySignal)
            let partial = try #require(partialName())
            let kept = try #require(try FileManager.default.attributesOfItem(atPath: out + "/" + partial)[.size] as? NSNumber).intValue
            #expect(FileManager.default.fileExists(atPath: out + "/" + partial + ".etag"))
            #expect(!FileManager.default.fileExists(atPath: out + "/com.example.level1"))

            let rerun = try await ExternalTool.run(Self.binary, arguments)
            #expect(rerun.status == 0, "\(rerun.error)")
            #expect(
                rerun.output.split(separator: "\n").last.map(String.init)
                    == "finished transaction \(id): the StoreKit transaction may be finished now")
            #expect(rerun.error.contains("com.example.level1: 100%"))
            #expect(try ClientTestSupport.contents(of: out + "/com.example.level1") == LiveServer.standardPacks[0].files)
            #expect(ClientTestSupport.names(in: out) == ["com.example.level1"])
            let requests = try await ClientTestSupport.bundleRequests(proxy, count: 2)
            try #require(requests.count == 2, "\(requests)")
            #expect(ClientTestSupport.rangeStart(requests[1]) == kept)
            #expect(requests[1]["status"] as? Int == 206)
        }
    }

    @Test func aRefusedTransactionIsOneSentenceAndAnExitStatus() async throws {
        try await LiveServer.with { server in
            let result = try await ExternalTool.run(
                Self.binary,
                ["fetch", "--server", server.base, "--transaction", "not-a-jws", "--out", server.scratch.path + "/out"])
            #expect(result.status == 4)
            let lines = result.error.split(separator: "\n")
            #expect(lines.count == 1)
            #expect(lines.first?.hasPrefix("depot fetch: the server refused POST /v1/transactions") == true, "\(result.error)")
            #expect(!FileManager.default.fileExists(atPath: server.scratch.path + "/out"))
        }
    }

    @Test func anUnreachableServerIsExitStatusThree() async throws {
        let scratch = try ScratchDirectory("fetch-unreachable")
        defer { scratch.remove() }
        // Port 9 (discard): nothing listens there on a test machine, so the connection is refused.
        let result = try await ExternalTool.run(
            Self.binary, ["fetch", "--server", "http://127.0.0.1:9", "--transaction", "x", "--out", scratch.path + "/out"])
        #expect(result.status == 3, "\(result.error)")
        #expect(result.error.hasPrefix("depot fetch: cannot reach http://127.0.0.1:9"))
    }

    @Test func aGooglePlayPurchaseIsFetchedFromItsFiles() async throws {
        let signer = try GooglePlayTestSigner()
        try await LiveServer.with(settings: try GooglePlayFixture.settings(signer)) { server in
            try server.scratch.write("purchase.json", try GooglePlayFixture.genuinePurchaseData())
            try server.scratch.write("purchase.signature", try GooglePlayFixture.genuineSignature() + "\n")
            let out = server.scratch.path + "/out"
            let arguments = [
                "fetch", "--server", server.base, "--google-purchase", server.scratch.path + "/purchase.json",
                "--google-signature", server.scratch.path + "/purchase.signature", "--out", out,
            ]
            let result = try await ExternalTool.run(Self.binary, arguments)
            #expect(result.status == 0, "\(result.error)")
            #expect(result.output.split(separator: "\n").last?.hasSuffix("the Google Play purchase may be acknowledged now") == true)
            #expect(try ClientTestSupport.contents(of: out + "/com.example.level1") == LiveServer.standardPacks[0].files)

            // The purchase data with a line break added is not what Google signed.
            try server.scratch.write("purchase.json", try GooglePlayFixture.genuinePurchaseData() + "\n")
            let changed = try await ExternalTool.run(Self.binary, arguments)
            #expect(changed.status == 4)
            #expect(changed.error.contains("signature-invalid"), "\(changed.error)")
        }
    }
}

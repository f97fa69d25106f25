@testable import DepotServerTestSupport
import DepotTestSupport
import Foundation
import Testing

/// A StoreKit 1 purchase end to end without Apple: `depot dev sign-receipt` signs an app receipt with the
/// development receipt root, and `depot fetch --app-receipt` redeems it at the running server, downloads,
/// installs and finishes it.
@Suite("depot dev sign-receipt and depot fetch --app-receipt")
struct ReceiptFetchTests {
    static let binary = DepotProcess.debugBinary(filePath: (#filePath as NSString).deletingLastPathComponent)

    @Test func aDevelopmentReceiptRunsTheWholeFlow() async throws {
        try await LiveServer.with { server in
            let id = "2000000000123456"
            let common = ["--config", server.scratch.path + "/Config", "--data-dir", server.scratch.path + "/data"]
            let signed = try await ExternalTool.run(
                Self.binary, ["dev", "sign-receipt", "--product", "com.example.level1", "--transaction-id", id] + common)
            #expect(signed.status == 0, "\(signed.error)")
            let receipt = try #require(signed.output.split(separator: "\n").last.map(String.init))
            #expect(Data(base64Encoded: receipt)?.first == 0x30)
            try server.scratch.write("receipt.b64", receipt + "\n")

            let out = server.scratch.path + "/out"
            let fetched = try await ExternalTool.run(
                Self.binary,
                [
                    "fetch", "--server", server.base, "--app-receipt", server.scratch.path + "/receipt.b64", "--transaction-id", id,
                    "--out", out,
                ])
            #expect(fetched.status == 0, "\(fetched.error)")
            #expect(
                fetched.output.split(separator: "\n").last.map(String.init)
                    == "finished transaction \(id): the StoreKit transaction may be finished now")
            #expect(try ClientTestSupport.contents(of: out + "/com.example.level1") == LiveServer.standardPacks[0].files)

            // An id the receipt does not hold: one sentence, the server's code, exit status 4.
            let absent = try await ExternalTool.run(
                Self.binary,
                [
                    "fetch", "--server", server.base, "--app-receipt", server.scratch.path + "/receipt.b64", "--transaction-id", "1",
                    "--out", server.scratch.path + "/absent",
                ])
            #expect(absent.status == 4)
            #expect(absent.error.contains("transaction-not-in-receipt"), "\(absent.error)")
        }
    }

    @Test func aReceiptMadeForADeviceIsFetchedWithThatDeviceOnly() async throws {
        try await LiveServer.with { server in
            let id = "2000000000123457"
            let device = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
            let common = ["--config", server.scratch.path + "/Config", "--data-dir", server.scratch.path + "/data"]
            let invalid = try await ExternalTool.run(
                Self.binary, ["dev", "sign-receipt", "--product", "com.example.level1", "--device-id", "nope"] + common)
            #expect(invalid.status != 0)
            let signed = try await ExternalTool.run(
                Self.binary,
                ["dev", "sign-receipt", "--product", "com.example.level1", "--transaction-id", id, "--device-id", device] + common)
            #expect(signed.status == 0, "\(signed.error)")
            let receipt = try #require(signed.output.split(separator: "\n").last.map(String.init))
            try server.scratch.write("receipt.b64", receipt + "\n")
            func fetch(_ deviceId: String, into folder: String) async throws -> ExternalTool.Output {
                try await ExternalTool.run(
                    Self.binary,
                    [
                        "fetch", "--server", server.base, "--app-receipt", server.scratch.path + "/receipt.b64", "--transaction-id", id,
                        "--device-id", deviceId, "--out", server.scratch.path + "/" + folder,
                    ])
            }

            // Another device: the server's code, exit status 4, nothing installed.
            let other = try await fetch("0F1C2D3E-4A5B-4C6D-8E7F-901A2B3C4D5E", into: "other")
            #expect(other.status == 4)
            #expect(other.error.contains("receipt-device-mismatch"), "\(other.error)")
            #expect(!FileManager.default.fileExists(atPath: server.scratch.path + "/other/com.example.level1"))

            let fetched = try await fetch(device, into: "out")
            #expect(fetched.status == 0, "\(fetched.error)")
            #expect(
                try ClientTestSupport.contents(of: server.scratch.path + "/out/com.example.level1") == LiveServer.standardPacks[0].files)
        }
    }
}

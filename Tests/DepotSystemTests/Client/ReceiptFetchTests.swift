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
}

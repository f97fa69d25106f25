@testable import DepotServerTestSupport
import DepotClient
import DepotTestSupport
import Foundation
import Testing

/// DepotClient refuses what it must not install, and confirms a delivery only once the content is in place.
@Suite("DepotClient verifies and unpacks safely")
struct ClientSafetyTests {
    @Test(arguments: ["dotdot", "absolute", "symlink"])
    func aHostileBundleIsRefusedAndNothingIsWrittenOutsideScratch(_ hostile: String) async throws {
        guard let python = ExternalTool.require("python3") else { return }
        let scratch = try ScratchDirectory("hostile-\(hostile)")
        defer { scratch.remove() }
        let bundle = scratch.path + "/hostile.zip"
        let escapeTo = scratch.path + "/escaped.txt"
        try await HostileDepot.makeBundle(python, at: bundle, hostile: hostile, escapeTo: escapeTo)
        let out = scratch.path + "/out"
        let server = try await HostileDepot.start(
            python, bundle: bundle, advertisedDigest: try await ClientTestSupport.sha256(python, bundle), out: out,
            logPath: scratch.path + "/server.log")
        defer { server.stop() }

        let delivery = try await ClientTestSupport.client(port: server.port).delivery(of: "signed", into: URL(fileURLWithPath: out))
        let error = await #expect(throws: DepotClientError.self) { try await delivery.run() }
        #expect(error?.code == .unsafeBundle, "\(String(describing: error))")

        #expect(!FileManager.default.fileExists(atPath: escapeTo))
        #expect(ClientTestSupport.names(in: scratch.path) == ["hostile.zip", "out", "server.log"])
        #expect(ClientTestSupport.names(in: out).isEmpty)
        #expect(try server.log().contains { $0["finish"] != nil } == false)
    }

    @Test func aWrongDigestIsRefusedBeforeAnythingIsUnpacked() async throws {
        guard let python = ExternalTool.require("python3") else { return }
        let scratch = try ScratchDirectory("wrong-digest")
        defer { scratch.remove() }
        let bundle = scratch.path + "/bundle.zip"
        try await HostileDepot.makeBundle(python, at: bundle, hostile: "none", escapeTo: "")
        let out = scratch.path + "/out"
        let actual = try await ClientTestSupport.sha256(python, bundle)
        let advertised = String(actual.reversed())
        let server = try await HostileDepot.start(
            python, bundle: bundle, advertisedDigest: advertised, out: out, logPath: scratch.path + "/server.log")
        defer { server.stop() }

        let delivery = try await ClientTestSupport.client(port: server.port).delivery(of: "signed", into: URL(fileURLWithPath: out))
        let error = await #expect(throws: DepotClientError.self) { try await delivery.run() }
        #expect(error?.code == .digestMismatch)
        #expect(error?.message.contains(actual) == true)
        // Nothing unpacked, no scratch folder, and the wrong bytes are not kept for a resume.
        #expect(ClientTestSupport.names(in: out).isEmpty)
        let log = try server.log()
        #expect(log.filter { $0["method"] as? String == "GET" }.count == 1)
        #expect(log.contains { $0["finish"] != nil } == false)
    }

    @Test func finishIsSentOnlyOnceTheContentIsUnpackedInPlace() async throws {
        guard let python = ExternalTool.require("python3") else { return }
        let scratch = try ScratchDirectory("finish-after-unpack")
        defer { scratch.remove() }
        let bundle = scratch.path + "/bundle.zip"
        try await HostileDepot.makeBundle(python, at: bundle, hostile: "none", escapeTo: "")
        let out = scratch.path + "/out"
        let server = try await HostileDepot.start(
            python, bundle: bundle, advertisedDigest: try await ClientTestSupport.sha256(python, bundle), out: out,
            logPath: scratch.path + "/server.log")
        defer { server.stop() }

        let outcome = try await ClientTestSupport.client(port: server.port).delivery(of: "signed", into: URL(fileURLWithPath: out)).run()
        #expect(outcome.finishStoreKitTransaction)
        #expect(try ClientTestSupport.contents(of: out + "/" + HostileDepot.contentId) == ["readme.txt": Array("a readme\n".utf8)])
        let finishes = try server.log().filter { $0["finish"] != nil }
        try #require(finishes.count == 1)
        #expect(finishes[0]["installedBeforeFinish"] as? Bool == true)
        #expect(ClientTestSupport.names(in: out) == [HostileDepot.contentId])
    }
}

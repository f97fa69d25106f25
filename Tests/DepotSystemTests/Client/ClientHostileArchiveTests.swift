@testable import DepotServerTestSupport
import DepotClient
import DepotTestSupport
import Foundation
import Testing

/// A hostile or compromised server offers, under their true sha256, the tars that trapped the archive reader
/// (a directory of size `Int64.max` in base-256 or in a pax record, a pax record length near `Int.max`): the
/// client refuses each as an unsafe bundle, installs nothing, keeps nothing and never confirms the delivery;
/// `depot fetch` says so in one sentence and exits 6.
@Suite("DepotClient refuses the archives that trapped the reader")
struct ClientHostileArchiveTests {
    static let binary = DepotProcess.debugBinary(filePath: (#filePath as NSString).deletingLastPathComponent)

    static let inputs = [
        "tar-directory-size-int64max-base256.tar", "tar-pax-size-int64max-directory.tar", "tar-pax-record-length-intmax.tar",
    ]

    @Test(arguments: inputs)
    func theClientRefusesTheBundleWithATypedError(_ name: String) async throws {
        guard let python = ExternalTool.require("python3") else { return }
        let scratch = try ScratchDirectory("client-hostile-\(name)")
        defer { scratch.remove() }
        let (bundle, server) = try await Self.serve(name, python: python, scratch: scratch)
        defer { server.stop() }
        let out = scratch.path + "/out"

        let delivery = try await ClientTestSupport.client(port: server.port).delivery(of: "signed", into: URL(fileURLWithPath: out))
        let error = await #expect(throws: DepotClientError.self) { try await delivery.run() }
        #expect(error?.code == .unsafeBundle, "\(String(describing: error))")
        #expect(error?.message.contains(HostileDepot.contentId) == true, "\(String(describing: error))")

        #expect(ClientTestSupport.names(in: out).isEmpty, "nothing installed and no partial file kept")
        #expect(ClientTestSupport.names(in: scratch.path) == [(bundle as NSString).lastPathComponent, "out", "server.log"].sorted())
        let log = try server.log()
        #expect(log.filter { $0["method"] as? String == "GET" }.count == 1, "\(log)")
        #expect(!log.contains { $0["finish"] != nil })
    }

    @Test(arguments: inputs)
    func depotFetchExitsAsForAnUnsafeBundle(_ name: String) async throws {
        guard let python = ExternalTool.require("python3") else { return }
        let scratch = try ScratchDirectory("fetch-hostile-\(name)")
        defer { scratch.remove() }
        let (_, server) = try await Self.serve(name, python: python, scratch: scratch)
        defer { server.stop() }
        let out = scratch.path + "/out"

        let result = try await ExternalTool.run(
            Self.binary, ["fetch", "--server", "http://127.0.0.1:\(server.port)", "--transaction", "signed", "--out", out])
        #expect(result.status == 6, "\(result.status): \(result.error)")
        let message = result.error.split(separator: "\n").last.map(String.init) ?? ""
        #expect(message.hasPrefix("depot fetch: the bundle of \(HostileDepot.contentId) was refused: "), "\(result.error)")
        #expect(!result.output.contains("installed") && !result.output.contains("finished"), "\(result.output)")
        #expect(ClientTestSupport.names(in: out).isEmpty)
        #expect(!(try server.log()).contains { $0["finish"] != nil })
    }

    /// Copies the regression input `name` into the scratch folder and starts a server offering it under its sha256.
    static func serve(
        _ name: String, python: String, scratch: ScratchDirectory
    ) async throws -> (bundle: String, server: PythonService) {
        let bytes = try #require(
            try FuzzInputs.inputs("archives").first { $0.name == "Fuzz/Regressions/archives/" + name }?.bytes,
            "Fuzz/Regressions/archives/\(name) is missing")
        let bundle = scratch.path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: bundle))
        let server = try await HostileDepot.start(
            python, bundle: bundle, advertisedDigest: try await ClientTestSupport.sha256(python, bundle),
            out: scratch.path + "/out", logPath: scratch.path + "/server.log")
        return (bundle, server)
    }
}

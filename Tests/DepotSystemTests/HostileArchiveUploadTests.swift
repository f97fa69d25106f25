@testable import DepotServerTestSupport
import DepotArchives
import DepotLedger
import DepotTestSupport
import Foundation
import Testing

@testable import DepotServer
@testable import DepotServices

#if canImport(Glibc)
import Glibc
#endif

/// A hostile archive costs one version job, never the server: the tars that once trapped the reader, posted
/// as versions to a running `depot serve` (which unpacks in a child process), each leave the job `failed`
/// with a reason while the server keeps answering; and an unpacker that traps is reported, not followed.
@Suite("Hostile archives posted to a live server", .serialized)
struct HostileArchiveUploadTests {
    static let level1 = "com.example.level1"
    static let inputs = [
        "tar-directory-size-int64max-base256.tar", "tar-pax-size-int64max-directory.tar", "tar-pax-record-length-intmax.tar",
    ]

    @Test func theReviewTarsFailTheirJobsAndTheServerAnswers() async throws {
        try await ServePlace.onEngine(.sqlite) { binary, databaseURL in
            let scratch = try ScratchDirectory("hostileArchiveUpload")
            defer { scratch.remove() }
            try SharedInstances.writeConfiguration(in: scratch)
            try SharedInstances.write(SharedInstances.smallPacks, in: scratch)
            let place = ServePlace(scratch: scratch, databaseURL: databaseURL)
            let depot = DepotCommand(scratch: scratch, databaseURL: databaseURL)
            let server = try await DepotProcess.start(binary: binary, arguments: place.arguments, environment: place.environment)
            defer { server.killIfRunning() }
            let port = try #require(server.port)
            let key = try await depot.makeKey()
            let regressions = FuzzInputs.root.appendingPathComponent("Fuzz/Regressions/archives")
            for (index, name) in Self.inputs.enumerated() {
                let archive = Array(try Data(contentsOf: regressions.appendingPathComponent(name)))
                let upload = try await UploadVersionKillNineTests.upload(archive, port: port, key: key)
                let body =
                    #"{"upload": "\#(upload)", "version": "9.\#(index)", "sha256": "\#(SharedInstances.hexSHA256(archive))"}"#
                let post = try await RawHTTPClient(port: port).request(
                    PublisherRequests.request("POST", "/v1/publisher/products/\(Self.level1)/versions", key: key, json: body))
                #expect(post.status == 202, "\(name): \(post.text)")
                let job = try #require(try JSONAnswer(post)["version.job"]?.string)
                try await eventually("the job of \(name) to fail") {
                    try await LedgerReader.with(place.ledgerURL) { ledger in try await ledger.versionJob(id: job)?.state == .failed }
                }
                let failed = try await LedgerReader.with(place.ledgerURL) { ledger in try await ledger.versionJob(id: job) }
                #expect(failed?.failureReason?.hasPrefix("the archive was refused") == true, "\(name): \(String(describing: failed))")
                let health = try await RawHTTPClient(port: port).request(RawHTTPClient.get("/healthz"))
                #expect(health.status == 200, "the server answers after \(name)")
            }
            #expect(server.isRunning)
            server.kill(SIGTERM)
            _ = await server.waitForExit(timeout: .seconds(60))
        }
    }

    @Test func anUnpackerThatTrapsIsAFailureOfItsJobOnly() throws {
        let scratch = try ScratchDirectory("trappingUnpacker")
        defer { scratch.remove() }
        let script = scratch.path + "/trap.sh"
        try "#!/bin/sh\nkill -ILL $$\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        #expect(throws: UnpackFailure.unpackerFailed("the unpacker stopped with signal \(SIGILL)")) {
            try ArchiveUnpacker.childProcess(executable: script).unpack(
                scratch.path + "/none.tar", into: scratch.path + "/out", limits: ArchiveLimits())
        }
        let silent = scratch.path + "/silent.sh"
        try "#!/bin/sh\nexit 2\n".write(toFile: silent, atomically: true, encoding: .utf8)
        chmod(silent, 0o755)
        #expect(throws: UnpackFailure.unpackerFailed("the unpacker exited with status 2 and no report")) {
            try ArchiveUnpacker.childProcess(executable: silent).unpack(
                scratch.path + "/none.tar", into: scratch.path + "/out", limits: ArchiveLimits())
        }
    }

    @Test func theDepotBinaryReportsRefusalsAndExtractions() throws {
        let binary = DepotProcess.debugBinary()
        let scratch = try ScratchDirectory("unpackArchiveCommand")
        defer { scratch.remove() }
        let regressions = FuzzInputs.root.appendingPathComponent("Fuzz/Regressions/archives")
        let hostile = regressions.appendingPathComponent(Self.inputs[0]).path
        do {
            try ArchiveUnpacker.childProcess(executable: binary).unpack(hostile, into: scratch.path + "/out", limits: ArchiveLimits())
            Issue.record("the hostile tar was extracted")
        } catch {
            guard case .refused(let refusal) = error else { throw error }
            #expect(refusal.code == .entryTooLarge, "\(refusal)")
        }
        var tar = [UInt8]()
        var header = [UInt8](repeating: 0, count: 512)
        for (offset, field) in [(0, "a.txt"), (100, "0000644"), (124, "00000000003"), (257, "ustar\u{0}00")] {
            for (index, byte) in field.utf8.enumerated() { header[offset + index] = byte }
        }
        header[156] = UInt8(ascii: "0")
        for index in 148..<156 { header[index] = 0x20 }
        let sum = String(header.reduce(0) { $0 + Int($1) }, radix: 8)
        for (index, byte) in (String(repeating: "0", count: 6 - sum.count) + sum).utf8.enumerated() { header[148 + index] = byte }
        header[154] = 0
        tar += header + Array("abc".utf8) + [UInt8](repeating: 0, count: 509 + 1024)
        try Data(tar).write(to: URL(fileURLWithPath: scratch.path + "/good.tar"))
        try ArchiveUnpacker.childProcess(executable: binary).unpack(
            scratch.path + "/good.tar", into: scratch.path + "/good", limits: ArchiveLimits())
        #expect(try String(contentsOfFile: scratch.path + "/good/a.txt", encoding: .utf8) == "abc")
    }
}

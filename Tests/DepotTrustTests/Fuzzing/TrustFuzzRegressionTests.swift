import DepotCore
import DepotTestSupport
import Foundation
import Testing

@testable import DepotTrust

/// Every seed of the `grants` and `jws` libFuzzer campaigns and every input a campaign found breaking an
/// invariant, replayed through the same harnesses; the `jws` harness also replays the genuine App Store
/// tokens of `shared/realworld`, which `Fuzz/run.sh` seeds its campaign with.
@Suite("Fuzz corpus and regressions replayed: grants, jws and google-play")
struct TrustFuzzRegressionTests {
    @Test func grantInputsKeepEveryInvariant() throws {
        let inputs = try FuzzInputs.inputs("grants")
        #expect(inputs.count >= 8, "the seeds are missing: \(FuzzInputs.root.path)")
        for (name, bytes) in inputs {
            #expect(GrantFuzzHarness.violations(bytes) == [], "\(name)")
        }
    }

    @Test func theValidGrantSeedsVerify() throws {
        // The seeds were made outside the server (Python's hmac): the harness's keys are the ones they name,
        // so a campaign starts from grants that verify.
        for (name, bytes) in try FuzzInputs.inputs("grants") where name.contains("/valid-grant") {
            let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            let digest = lines.count > 1 ? GrantFuzzHarness.digest(named: lines[1]) : GrantFuzzHarness.digest
            let token = String(decoding: lines[0], as: UTF8.self)
            #expect(throws: Never.self, "\(name)") {
                try GrantFuzzHarness.authority.verify(token, digest: digest, now: GrantFuzzHarness.now)
            }
        }
    }

    @Test func googlePlayInputsKeepEveryInvariant() throws {
        let harness = try GooglePlayFuzzHarness(realworld: GenuineAppleDataTests.directory.path)
        let inputs = try FuzzInputs.inputs("google-play")
        #expect(inputs.count >= 5, "the seeds are missing: \(FuzzInputs.root.path)")
        for (name, bytes) in inputs {
            #expect(harness.violations(bytes) == [], "\(name)")
        }
        // The genuine purchase through the harness's third mode verifies, and keeps every invariant.
        let genuine = try #require(harness.genuine)
        let input = genuine.data + [0] + Array(Data(genuine.signature).base64EncodedString().utf8)
        #expect(harness.violations(input) == [])
        #expect(harness.violations(genuine.data + [0] + Array("AAAA".utf8)) == [])
        // A valid purchase verifies in the first mode; its signature edited, it does not.
        #expect(harness.violations([0x01] + GooglePlayFuzzHarness.purchase) == [])
        #expect(harness.violations([0x02, 3, 0x40]) == [])
    }

    static func jwsHarness() throws -> JWSFuzzHarness {
        try JWSFuzzHarness(realworld: GenuineAppleDataTests.directory.path)
    }

    @Test func jwsInputsKeepEveryInvariant() async throws {
        let harness = try Self.jwsHarness()
        let inputs = try FuzzInputs.inputs("jws")
        #expect(inputs.count >= 10, "the seeds are missing: \(FuzzInputs.root.path)")
        for (name, bytes) in inputs {
            #expect(await harness.violations(bytes) == [], "\(name)")
        }
    }

    @Test func genuineTokensVerifyThroughTheHarnessAndKeepEveryInvariant() async throws {
        let harness = try Self.jwsHarness()
        let folder = GenuineAppleDataTests.directory.appendingPathComponent("apple-signed")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".jws") }
        #expect(names.count == 15 && harness.genuineSignedParts.count == 15)
        for name in names.sorted() {
            let bytes = Array(try Data(contentsOf: folder.appendingPathComponent(name)))
            let token = String(decoding: bytes, as: UTF8.self)
            let verifier = try #require(harness.genuineVerifier(for: token))
            let verified = await JWSFuzzHarness.verify(token, as: JWSFuzzHarness.Kind(token: token), with: verifier)
            #expect(verified.accepted && verified.found == [], "\(name): \(verified.found)")
            #expect(await harness.violations(bytes) == [], "\(name)")
        }
    }

    @Test func theJWSHarnessChecksBite() async throws {
        // Without the genuine tokens on its list, a genuine token is reported as accepted though Apple did not
        // sign it.
        var harness = try Self.jwsHarness()
        harness.genuineSignedParts = []
        let token = try GenuineAppleDataTests.text("apple-signed/05a-session-DID_RENEW-signedTransactionInfo.jws")
        #expect(await harness.violations(Array(token.utf8)) == ["a token Apple did not sign verified as transaction"])
        // A development transaction signed for another app is refused, and said so by a typed error.
        let other = Array(JWSFuzzHarness.transaction)
        #expect(await harness.violations([0x01] + other) == [])
        let wrongApp = Array(String(decoding: other, as: UTF8.self).replacingOccurrences(of: "depot.fuzz", with: "other").utf8)
        #expect(await harness.violations([0x01] + wrongApp) == [])
        let verified = await JWSFuzzHarness.verify(
            harness.sign(payload: wrongApp, x5c: harness.developmentDER), as: .transaction, with: harness.developmentVerifier)
        #expect(!verified.accepted)
    }
}

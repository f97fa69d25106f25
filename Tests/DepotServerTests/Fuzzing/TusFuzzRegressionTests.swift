@testable import DepotServerTestSupport
import DepotAPI
import DepotTestSupport
import Foundation
import Testing

@testable import DepotServer
@testable import DepotServices

/// Every seed of the `tus` libFuzzer campaign and every input a campaign found breaking an invariant,
/// replayed through the same harness.
@Suite("Fuzz corpus and regressions replayed: tus")
struct TusFuzzRegressionTests {
    @Test func tusInputsKeepEveryInvariant() throws {
        let inputs = try FuzzInputs.inputs("tus")
        #expect(inputs.count >= 6, "the seeds are missing: \(FuzzInputs.root.path)")
        for (name, bytes) in inputs {
            #expect(TusFuzzHarness.violations(bytes) == [], "\(name)")
        }
    }

    @Test func theHarnessChecksBite() {
        #expect(TusFuzzHarness.refusalViolations(DepotError(.internal, "failed"), "PATCH").count == 1)
        #expect(TusFuzzHarness.refusalViolations(UploadError.badUploadHeader("send Upload-Offset"), "PATCH") == [])
        // A write within the upload passes the PATCH checks; one past its length is refused (413), which is
        // no violation.
        let write = try? UploadRules.write(
            offset: 0, length: 10, contentType: TusProtocol.offsetStreamType, uploadOffset: "0", uploadLength: nil,
            contentLength: 4, maxSize: 100)
        #expect(write == UploadRules.Write(start: 0, setLength: nil, limit: 10))
        #expect(
            TusFuzzHarness.writeViolations(
                offset: 0, length: 3, contentType: TusProtocol.offsetStreamType, uploadOffset: "0", uploadLength: nil,
                contentLength: 4, maxSize: 100) == [])
    }
}

import DepotHTTP
import DepotTestSupport
import Foundation
import Testing

/// Every seed of the `http-fields` libFuzzer campaign (`Fuzz/Corpus/`) and every input a campaign found
/// breaking an invariant (`Fuzz/Regressions/`, kept with the fix) replayed through the same harness.
@Suite("Fuzz corpus and regressions replayed: http-fields")
struct FuzzRegressionTests {
    @Test func httpFieldsInputsKeepEveryInvariant() throws {
        let inputs = try FuzzInputs.inputs("http-fields")
        #expect(inputs.count >= 8, "the seeds are missing: \(FuzzInputs.root.path)")
        for (name, bytes) in inputs {
            #expect(HTTPFieldsFuzzHarness.violations(bytes) == [], "\(name)")
        }
    }

    @Test func theHarnessChecksBite() {
        // A representation of negative size cannot come from a file (the harness never builds one); the
        // evaluator answers it with an empty 200, which the checks report.
        let found = HTTPFieldsFuzzHarness.planViolations(
            method: .get, maxRanges: 16, size: -5, now: 784_111_777 + 86_400, headers: [])
        #expect(found.count == 1 && found[0].hasPrefix("200 with body"), "\(found)")
    }
}

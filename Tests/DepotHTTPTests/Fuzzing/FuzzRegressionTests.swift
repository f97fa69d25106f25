import DepotHTTP
import Foundation
import Testing

/// Every seed of the libFuzzer campaigns (`Fuzz/Corpus/`) and every input a campaign found breaking an
/// invariant (`Fuzz/Regressions/`, kept with the fix) replayed through the same harness.
@Suite("Fuzz corpus and regressions replayed")
struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The inputs kept for `target`, by file name.
    static func inputs(_ target: String) throws -> [(name: String, bytes: [UInt8])] {
        var found: [(String, [UInt8])] = []
        for folder in ["Fuzz/Corpus/\(target)", "Fuzz/Regressions/\(target)"] {
            let directory = root.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            where !name.hasPrefix(".") {
                found.append(("\(folder)/\(name)", Array(try Data(contentsOf: directory.appendingPathComponent(name)))))
            }
        }
        return found
    }

    @Test func httpFieldsInputsKeepEveryInvariant() throws {
        let inputs = try Self.inputs("http-fields")
        #expect(inputs.count >= 8, "the seeds are missing: \(Self.root.path)")
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

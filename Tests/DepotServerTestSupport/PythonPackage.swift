import DepotTestSupport
import Foundation
import Testing

/// A `python3` that can import a package from PyPI, for the tests that drive a real client written in Python.
enum PythonPackage {
    /// The first `python3` on PATH (as `pip install` put the package there), then the system's, that imports
    /// `module`; nil when none does: a test failure in CI (`CI` set, where `.ci/run` installs `package`),
    /// elsewhere a skip with a message saying how to install it.
    static func python(
        importing module: String, package: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        var seen: Set<String> = []
        for directory in path.split(separator: ":").map(String.init) + ["/usr/local/bin", "/usr/bin"] {
            let candidate = directory + "/python3"
            guard seen.insert(candidate).inserted, FileManager.default.isExecutableFile(atPath: candidate) else { continue }
            if try await ExternalTool.run(candidate, ["-c", "import " + module]).status == 0 { return candidate }
        }
        if ProcessInfo.processInfo.environment["CI"] != nil {
            Issue.record("\(package) is required in CI (python3 -m pip install \(package))", sourceLocation: sourceLocation)
        } else {
            print("skipping: \(package) not installed (python3 -m pip install \(package))")
        }
        return nil
    }
}

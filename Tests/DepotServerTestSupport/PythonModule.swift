import DepotTestSupport
import Foundation
import Testing

/// Finds a `python3` that can import a module installed from PyPI (tuspy, aiotus): the one on PATH first, as
/// `pip install` put it there.
enum PythonModule {
    /// A `python3` that imports `module`, or nil: an issue recorded in CI (where `.ci/run` installs `package`), a
    /// skip with a message elsewhere.
    static func python(importing module: String, package: String) async throws -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        var seen: Set<String> = []
        for directory in path.split(separator: ":").map(String.init) + ["/usr/local/bin", "/usr/bin"] {
            let candidate = directory + "/python3"
            guard seen.insert(candidate).inserted, FileManager.default.isExecutableFile(atPath: candidate) else { continue }
            if try await ExternalTool.run(candidate, ["-c", "import \(module)"]).status == 0 { return candidate }
        }
        if ProcessInfo.processInfo.environment["CI"] != nil {
            Issue.record("\(package) is required in CI (python3 -m pip install \(package))")
        } else {
            print("skipping: \(package) not installed (python3 -m pip install \(package))")
        }
        return nil
    }
}

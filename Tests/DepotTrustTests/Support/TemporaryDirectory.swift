import Foundation

/// Runs `body` with a fresh directory `/tmp/DepotTrustTests-<test name>-<random>`, removed afterwards.
func withTemporaryDirectory<R>(
    _ test: String = #function, _ body: (String) async throws -> R
) async throws -> R {
    let name = test.prefix { $0 != "(" }
    let path = NSTemporaryDirectory() + "DepotTrustTests-\(name)-\(UInt32.random(in: .min ... .max))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

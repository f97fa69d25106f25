import Foundation

/// Runs `body` with a fresh directory `/tmp/DepotBundlesTests-<test name>-<random>`, removed afterwards.
func withTemporaryDirectory<R>(
    _ test: String = #function, _ body: (String) async throws -> R
) async throws -> R {
    let name = test.prefix { $0 != "(" }
    let path = NSTemporaryDirectory() + "DepotBundlesTests-\(name)-\(UInt32.random(in: .min ... .max))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { removeTree(path) }
    return try await body(path)
}

/// Removes a tree, first making read-only directories writable again.
func removeTree(_ path: String) {
    if let enumerator = FileManager.default.enumerator(atPath: path) {
        for case let relative as String in enumerator {
            _ = chmod(path + "/" + relative, 0o755)
        }
    }
    try? FileManager.default.removeItem(atPath: path)
}

import DepotTestSupport
import Foundation
import Testing

/// A scratch directory named after the test, removed at the end.
struct ScratchDirectory {
    let path: String

    init(_ name: String) throws {
        let safe = name.map { $0.isLetter || $0.isNumber ? $0 : "-" }
        path = NSTemporaryDirectory() + "depot-\(String(safe))-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// Writes a file, creating parent directories.
    func write(_ relative: String, _ bytes: [UInt8]) throws {
        let full = (path as NSString).appendingPathComponent(relative)
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: full))
    }

    func write(_ relative: String, _ text: String) throws { try write(relative, Array(text.utf8)) }
}

import DepotServices
import DepotTestSupport
import Foundation
import Testing

/// A small filesystem a test can fill: a tmpfs of a few MiB mounted over a directory (`mount -t tmpfs`, which needs
/// root). Where it cannot be mounted the test is skipped with a message, except in CI (`CI` set), where that is a
/// failure: the disk tests must run there.
enum SmallFilesystem {
    /// Mounts a tmpfs of `bytes` at `directory` (made if missing), runs `body`, and unmounts it (lazily: a server
    /// killed just before may still hold files open). Returns without running `body` when it cannot be mounted.
    static func with(
        at directory: String, bytes: Int, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> Void
    ) async throws {
        guard let mount = ExternalTool.require("mount", sourceLocation: sourceLocation),
            let umount = ExternalTool.require("umount", sourceLocation: sourceLocation)
        else { return }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let mounted = try await ExternalTool.run(mount, ["-t", "tmpfs", "-o", "size=\(bytes),mode=0700", "tmpfs", directory])
        guard mounted.status == 0 else {
            let why = "a tmpfs cannot be mounted here (mount -t tmpfs needs root): \(mounted.combined)"
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("the disk tests must run in CI, but \(why)", sourceLocation: sourceLocation)
            } else {
                print("skipping: \(why)")
            }
            return
        }
        let result: Result<Void, any Error>
        do {
            try await body()
            result = .success(())
        } catch {
            result = .failure(error)
        }
        try await ExternalTool.run(umount, ["-l", directory])
        try result.get()
    }

    /// Writes a file of zeros at `path` so that `leaving` bytes stay free on the filesystem of `directory` (0: until
    /// the filesystem is full).
    static func fill(_ path: String, under directory: String, leaving: Int64) async throws {
        try await OffPool.run("depot-test-fill") { () throws -> Void in
            let free = try #require(StorageFloor.statvfsFreeBytes(directory))
            var remaining = leaving == 0 ? Int64.max : free - leaving
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
            let descriptor = open(path, O_WRONLY | O_APPEND)
            guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
            defer { close(descriptor) }
            let chunk = [UInt8](repeating: 0, count: 64 << 10)
            while remaining > 0 {
                let count = Int(min(Int64(chunk.count), remaining))
                let written = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, count) }
                if written <= 0 { break }
                remaining -= Int64(written)
            }
        }
    }

    /// Removes a file.
    static func remove(_ path: String) async throws {
        try FileManager.default.removeItem(atPath: path)
    }
}

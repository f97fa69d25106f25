import Foundation

/// The repository the tests run from, found from a source file's path: the nearest folder above it that holds
/// `Package.swift`, however deep the file sits.
package enum RepositoryRoot {
    /// The repository holding this file.
    package static let path = containing(#filePath)

    /// The repository holding `path` (a file or a folder).
    package static func containing(_ path: String) -> String {
        var url = URL(fileURLWithPath: path)
        while url.path != "/" && !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
            url.deleteLastPathComponent()
        }
        return url.path
    }
}

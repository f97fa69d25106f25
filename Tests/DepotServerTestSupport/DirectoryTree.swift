import Foundation

/// Every path under a directory, relative.
func tree(_ root: String) -> [String] {
    (FileManager.default.subpaths(atPath: root) ?? []).sorted()
}

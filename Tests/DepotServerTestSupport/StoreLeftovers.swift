import Foundation

/// Files under a store's `tmp/` other than the workspace lock files: what a crash or a failed build
/// would have left half-written.
func partialFiles(under temporary: String) -> [String] {
    guard let walker = FileManager.default.enumerator(atPath: temporary) else { return [] }
    var found: [String] = []
    while let path = walker.nextObject() as? String {
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: temporary + "/" + path, isDirectory: &isDirectory)
        if !isDirectory.boolValue && !path.hasSuffix("/lock") && path != "lock" { found.append(path) }
    }
    return found.sorted()
}

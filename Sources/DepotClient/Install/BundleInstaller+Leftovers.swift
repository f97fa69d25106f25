import Foundation

extension BundleInstaller {
    /// Tidies what a process killed during an install left beside the destination: scratch folders
    /// (`.NAME.unpack-XXXXXXXX`, `.NAME.apply-XXXXXXXX`) are removed; the installed version moved aside
    /// (`.NAME.replaced-XXXXXXXX`) is put back when the kill fell between the two renames and the destination
    /// is missing, and removed otherwise.
    func recoverLeftovers() {
        let prefix = "." + name + "."
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
        for entry in names.sorted() where entry.hasPrefix(prefix) {
            let rest = entry.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: "-") else { continue }
            let purpose = rest[..<dash]
            let suffix = rest[rest.index(after: dash)...]
            guard suffix.count == 8, suffix.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { continue }
            let path = parent + "/" + entry
            switch purpose {
            case "unpack", "apply":
                Files.remove(path)
            case "replaced":
                if FileManager.default.fileExists(atPath: destination) {
                    Files.remove(path)
                } else {
                    try? Files.rename(path, to: destination)
                }
            default:
                continue
            }
        }
    }
}

#if canImport(Glibc)
import DepotSystem
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Opens a pack's files for reading without following any link on the way: each directory is opened
/// relative to its parent with `O_NOFOLLOW`. Files come sorted, so a directory's files are adjacent and
/// the chain of open directories is kept from one file to the next.
final class ContentsOpener {
    private var names: [String] = []
    private var descriptors: [Int32]

    init(contentsDirectory: String) throws(PackError) {
        descriptors = [try PackReader.openDirectory(contentsDirectory, shown: "Contents/")]
    }

    deinit {
        for fd in descriptors { POSIX.closeFile(fd) }
    }

    /// Opens `relativePath` (under `Contents/`) read-only; the caller closes the descriptor.
    func open(_ relativePath: String) throws(PackError) -> Int32 {
        // Split and compared as bytes: a name may begin with a combining mark, which Character-wise
        // splitting would glue to the "/", and String's == equates NFC and NFD spellings.
        var components = relativePath.utf8.split(separator: 0x2F, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        let fileName = components.removeLast()
        var common = 0
        while common < names.count, common < components.count, names[common].utf8.elementsEqual(components[common].utf8) {
            common += 1
        }
        while names.count > common {
            names.removeLast()
            POSIX.closeFile(descriptors.removeLast())
        }
        for name in components[common...] {
            let shown = "Contents/" + (names + [name]).joined(separator: "/")
            let fd = try PackReader.openDirectory(in: descriptors.last!, Array(name.utf8), shown: shown)
            names.append(name)
            descriptors.append(fd)
        }
        do {
            // O_NONBLOCK: a FIFO swapped in since the pack was read must not hang the build.
            return try POSIX.openAt(descriptors.last!, Array(fileName.utf8), O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        } catch  where error.code == ELOOP {
            throw PackError(.packChanged, "Contents/\(relativePath) became a symbolic link after the pack was read")
        } catch  where error.code == ENOENT {
            throw PackError(.packChanged, "Contents/\(relativePath) disappeared after the pack was read")
        } catch {
            throw PackError(.unreadable, "Contents/\(relativePath) cannot be opened: \(error)")
        }
    }

    /// Opens `file` as a bundle entry named `Contents/<path>`, checking it is still the regular file of
    /// the size and modification time the pack recorded.
    func openEntry(_ file: PackFile) throws(PackError) -> EntrySource {
        let shown = "Contents/" + file.relativePath
        let fd = try open(file.relativePath)
        let opened: FileStatus
        do {
            opened = try FileStatus.fstat(fd)
        } catch {
            POSIX.closeFile(fd)
            throw PackError(.unreadable, "\(shown) cannot be examined: \(error)")
        }
        guard opened.kind == .regular, opened.size == file.size,
            file.modificationTime.map({ $0 == opened.modificationTime }) ?? true
        else {
            POSIX.closeFile(fd)
            throw PackError(.packChanged, "\(shown) changed after the pack was read")
        }
        return EntrySource(name: shown, descriptor: fd, opened: opened)
    }
}

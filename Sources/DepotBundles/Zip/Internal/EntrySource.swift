import DepotSystem
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One entry of a bundle being written: its name, size and bytes, readable by position from any thread.
///
/// A file entry owns its open descriptor (closed when the last chunk job and the writer let go of it)
/// and remembers what `fstat` said when it was opened, so the writer can check, once the entry is
/// written, that the file did not change meanwhile. It also holds the entry's one deflate-or-store
/// decision, taken by whichever chunk job needs it first: every chunk of an entry uses one method.
final class EntrySource: Sendable {
    private enum Storage {
        case memory([UInt8])
        case file(descriptor: Int32, opened: FileStatus)
    }

    /// The entry's name in the archive, UTF-8 (`Contents/levels/1.json`).
    let name: [UInt8]
    /// How the entry is named in errors.
    let shown: String
    /// The entry's size in bytes.
    let size: Int64
    private let storage: Storage
    private let deflateDecision = Mutex<Bool?>(nil)

    /// An entry whose bytes are in memory (`ContentInfo.plist`).
    init(name: String, bytes: [UInt8]) {
        self.name = Array(name.utf8)
        self.shown = name
        self.size = Int64(bytes.count)
        self.storage = .memory(bytes)
    }

    /// An entry read from `descriptor`, which it now owns. `opened` is the descriptor's status when
    /// the writer checked it against the pack.
    init(name: String, descriptor: Int32, opened: FileStatus) {
        self.name = Array(name.utf8)
        self.shown = name
        self.size = opened.size
        self.storage = .file(descriptor: descriptor, opened: opened)
    }

    deinit {
        if case .file(let descriptor, _) = storage { POSIX.closeFile(descriptor) }
    }

    /// Reads exactly `buffer.count` bytes at `offset`.
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(PackError) {
        switch storage {
        case .memory(let bytes):
            bytes.withUnsafeBytes { raw in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[Int(offset)..<Int(offset) + buffer.count]))
            }
        case .file(let descriptor, _):
            do throws(SystemCallError) {
                try POSIX.readFully(descriptor, into: buffer, at: offset)
            } catch  where error.code == EIO {
                throw PackError(.packChanged, "\(shown) shrank while it was bundled")
            } catch {
                throw PackError(.unreadable, "\(shown) cannot be read: \(error)")
            }
        }
    }

    /// Whether the entry is deflated: the decision taken once by `decide` (which sees no other caller
    /// until it returns), then reused. It depends only on the entry's bytes, never on which job asks.
    func shouldDeflate<E: Error>(_ decide: () throws(E) -> Bool) throws(E) -> Bool {
        try deflateDecision.withLock { (decision) throws(E) -> Bool in
            if let decision { return decision }
            let decided = try decide()
            decision = decided
            return decided
        }
    }

    /// Checks that a file entry is still what it was when it was opened (same size and modification
    /// time): a file written to while it was bundled would give a bundle of no version.
    func checkUnchanged() throws(PackError) {
        guard case .file(let descriptor, let opened) = storage else { return }
        let now: FileStatus
        do {
            now = try FileStatus.fstat(descriptor)
        } catch {
            throw PackError(.unreadable, "\(shown) cannot be examined: \(error)")
        }
        guard now.size == opened.size, now.modificationTime == opened.modificationTime else {
            throw PackError(.packChanged, "\(shown) changed while it was bundled")
        }
    }
}

import DepotSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock` on a file beside the ledger, held while its schema migrates, so processes (and
/// several ledgers in one process) opening the same file migrate one at a time.
struct MigrationLock {
    private let descriptor: Int32

    /// Opens (creating it) and locks the file, waiting for any other holder.
    init(path: String) throws(LedgerError) {
        let descriptor: Int32
        do {
            descriptor = try POSIX.openFile(path, O_RDWR | O_CREAT, mode: 0o600)
        } catch {
            throw .unavailable("cannot open the migration lock \(path): \(error)")
        }
        do {
            _ = try POSIX.lockExclusively(descriptor, wait: true)
        } catch {
            POSIX.closeFile(descriptor)
            throw .unavailable("cannot lock \(path): \(error)")
        }
        self.descriptor = descriptor
    }

    /// Unlocks and closes the file.
    func release() {
        POSIX.unlock(descriptor)
        POSIX.closeFile(descriptor)
    }
}

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
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .unavailable("cannot open the migration lock \(path): errno \(errno)") }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let code = errno
                close(descriptor)
                throw .unavailable("cannot lock \(path): errno \(code)")
            }
        }
        self.descriptor = descriptor
    }

    /// Unlocks and closes the file.
    func release() {
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}

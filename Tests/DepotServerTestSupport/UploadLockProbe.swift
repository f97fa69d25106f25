import Glibc

/// Whether another open file description holds an upload file's `flock` (the server's writer does while a
/// PATCH streams).
enum UploadLockProbe {
    static func isLocked(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
            flock(descriptor, LOCK_UN)
            return false
        }
        return true
    }
}

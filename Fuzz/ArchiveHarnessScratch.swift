#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Shared by the libFuzzer entry points of the `archives` and `archive-structures` targets: the harness works in
// a scratch directory under $TMPDIR (run.sh points it at /dev/shm when there is one), removed when the process
// ends.
nonisolated(unsafe) private var scratchDirectory = ""

/// An archive harness in a new scratch directory named after `target`.
func makeArchiveHarness(target: String) -> ArchiveFuzzHarness {
    let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array((base + "/depot-fuzz-\(target)-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("\(target): cannot make a scratch directory under \(base)") }
    scratchDirectory = String(cString: made)
    atexit { ArchiveFuzzHarness.removeTree(scratchDirectory) }
    return ArchiveFuzzHarness(scratch: scratchDirectory)
}

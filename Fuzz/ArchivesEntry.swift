#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The libFuzzer entry point of the `archives` target (built by Fuzz/run.sh with -sanitize=fuzzer): a broken
// invariant stops the process, which libFuzzer reports and keeps as a crash input. The scratch directory
// lives under $TMPDIR (run.sh points it at /dev/shm when there is one) and is removed when the process ends.
private let harness: ArchiveFuzzHarness = {
    let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array((base + "/depot-fuzz-archives-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("archives: cannot make a scratch directory under \(base)") }
    let scratch = String(cString: made)
    atexit { ArchiveFuzzHarness.removeTree(scratchDirectory) }
    scratchDirectory = scratch
    return ArchiveFuzzHarness(scratch: scratch)
}()
nonisolated(unsafe) private var scratchDirectory = ""

@_cdecl("LLVMFuzzerTestOneInput")
public func depotFuzzArchives(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let found = harness.violations(bytes)
    if !found.isEmpty { fatalError("archives: " + found.joined(separator: "; ")) }
    return 0
}

// The libFuzzer entry point of the `archives` target (built by Fuzz/run.sh with -sanitize=fuzzer): a broken
// invariant stops the process, which libFuzzer reports and keeps as a crash input.
private let harness = makeArchiveHarness(target: "archives")

@_cdecl("LLVMFuzzerTestOneInput")
public func depotFuzzArchives(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let found = harness.violations(bytes)
    if !found.isEmpty { fatalError("archives: " + found.joined(separator: "; ")) }
    return 0
}

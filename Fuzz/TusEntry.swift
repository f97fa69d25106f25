// The libFuzzer entry point of the `tus` target (built by Fuzz/run.sh with -sanitize=fuzzer): a broken
// invariant stops the process, which libFuzzer reports and keeps as a crash input.
@_cdecl("LLVMFuzzerTestOneInput")
public func depotFuzzTus(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let found = TusFuzzHarness.violations(bytes)
    if !found.isEmpty { fatalError("tus: " + found.joined(separator: "; ")) }
    return 0
}

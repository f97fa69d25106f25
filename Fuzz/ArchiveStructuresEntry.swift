// The libFuzzer entry point of the `archive-structures` target (built by Fuzz/run.sh with -sanitize=fuzzer):
// each input describes an archive (ArchiveStructureGenerator: valid tar checksums, a consistent zip central
// directory, sizes and offsets drawn from the extremes), which the `archives` harness reads. A broken
// invariant or a trap stops the process, which libFuzzer keeps as a crash input.
private let harness = makeArchiveHarness(target: "structures")

@_cdecl("LLVMFuzzerTestOneInput")
public func depotFuzzArchiveStructures(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let description = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let found = harness.violations(ArchiveStructureGenerator.archive(from: description))
    if !found.isEmpty { fatalError("archive-structures: " + found.joined(separator: "; ")) }
    return 0
}

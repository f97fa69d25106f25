import Foundation

// The libFuzzer entry point of the `google-play` target (built by Fuzz/run.sh with -sanitize=fuzzer): a broken
// invariant stops the process, which libFuzzer reports and keeps as a crash input. The genuine purchase is read
// from DEPOT_FUZZ_REALWORLD (run.sh sets it to ../shared/realworld when it exists).
private let harness: GooglePlayFuzzHarness = {
    do {
        return try GooglePlayFuzzHarness(realworld: ProcessInfo.processInfo.environment["DEPOT_FUZZ_REALWORLD"])
    } catch {
        fatalError("google-play: the harness could not start: \(error)")
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func depotFuzzGooglePlay(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let found = harness.violations(bytes)
    if !found.isEmpty { fatalError("google-play: " + found.joined(separator: "; ")) }
    return 0
}

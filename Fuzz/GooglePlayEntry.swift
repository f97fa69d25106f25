import Foundation

// The `google-play` target of the trust fuzzer (Fuzz/TrustEntry.swift hands it each input): a broken invariant
// stops the process, which libFuzzer reports and keeps as a crash input. The genuine purchase is read
// from DEPOT_FUZZ_REALWORLD (run.sh sets it to ../shared/realworld when it exists).
private let harness: GooglePlayFuzzHarness = {
    do {
        return try GooglePlayFuzzHarness(realworld: ProcessInfo.processInfo.environment["DEPOT_FUZZ_REALWORLD"])
    } catch {
        fatalError("google-play: the harness could not start: \(error)")
    }
}()

func depotFuzzGooglePlay(_ bytes: [UInt8]) {
    let found = harness.violations(bytes)
    if !found.isEmpty { fatalError("google-play: " + found.joined(separator: "; ")) }
}

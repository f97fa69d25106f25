import Foundation

// The libFuzzer entry point of the trust fuzzer (built once by Fuzz/run.sh with -sanitize=fuzzer): DepotTrust is
// compiled with the sanitizers once, and each of its targets (grants, jws, google-play, app-receipts) is a run of
// this binary with DEPOT_FUZZ_TRUST_TARGET naming it.

/// The target this process fuzzes, read once.
private let trustTarget: @Sendable ([UInt8]) -> Void = {
    switch ProcessInfo.processInfo.environment["DEPOT_FUZZ_TRUST_TARGET"] ?? "" {
    case "grants": return depotFuzzGrants
    case "jws": return depotFuzzJWS
    case "google-play": return depotFuzzGooglePlay
    case "app-receipts": return depotFuzzReceipts
    case let other: fatalError("DEPOT_FUZZ_TRUST_TARGET is \"\(other)\", not grants, jws, google-play or app-receipts")
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func depotFuzzTrust(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    trustTarget(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

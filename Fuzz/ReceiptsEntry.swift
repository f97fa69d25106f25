import Dispatch
import Foundation

// The libFuzzer entry point of the `app-receipts` target (built by Fuzz/run.sh with -sanitize=fuzzer): a broken
// invariant stops the process, which libFuzzer reports and keeps as a crash input. Apple Root CA and the genuine
// receipts are read from DEPOT_FUZZ_REALWORLD (run.sh sets it to ../shared/realworld when it exists).
private let harness: ReceiptFuzzHarness = {
    do {
        return try ReceiptFuzzHarness(realworld: ProcessInfo.processInfo.environment["DEPOT_FUZZ_REALWORLD"])
    } catch {
        fatalError("app-receipts: the harness could not start: \(error)")
    }
}()

/// Carries the answer of the verification task back to the fuzzer's thread.
private final class Answer: @unchecked Sendable {
    var found: [String] = []
}

@_cdecl("LLVMFuzzerTestOneInput")
public func depotFuzzReceipts(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let answer = Answer()
    let done = DispatchSemaphore(value: 0)
    Task {
        answer.found = await harness.violations(bytes)
        done.signal()
    }
    done.wait()
    if !answer.found.isEmpty { fatalError("app-receipts: " + answer.found.joined(separator: "; ")) }
    return 0
}

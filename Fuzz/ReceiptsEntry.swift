import Dispatch
import Foundation

// The `app-receipts` target of the trust fuzzer (Fuzz/TrustEntry.swift hands it each input): a broken invariant
// stops the process, which libFuzzer reports and keeps as a crash input. Apple Root CA and the genuine
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

func depotFuzzReceipts(_ bytes: [UInt8]) {
    let answer = Answer()
    let done = DispatchSemaphore(value: 0)
    Task {
        answer.found = await harness.violations(bytes)
        done.signal()
    }
    done.wait()
    if !answer.found.isEmpty { fatalError("app-receipts: " + answer.found.joined(separator: "; ")) }
}

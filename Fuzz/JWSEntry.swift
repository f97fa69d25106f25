import Dispatch
import Foundation

// The `jws` target of the trust fuzzer (Fuzz/TrustEntry.swift hands it each input): a broken invariant
// stops the process, which libFuzzer reports and keeps as a crash input. Apple's root and the
// genuine tokens are read from DEPOT_FUZZ_REALWORLD (run.sh sets it to ../shared/realworld when it exists).
private let harness: JWSFuzzHarness = {
    do {
        return try JWSFuzzHarness(realworld: ProcessInfo.processInfo.environment["DEPOT_FUZZ_REALWORLD"])
    } catch {
        fatalError("jws: the harness could not start: \(error)")
    }
}()

/// Carries the answer of the verification task back to the fuzzer's thread.
private final class Answer: @unchecked Sendable {
    var found: [String] = []
}

func depotFuzzJWS(_ bytes: [UInt8]) {
    let answer = Answer()
    let done = DispatchSemaphore(value: 0)
    Task {
        answer.found = await harness.violations(bytes)
        done.signal()
    }
    done.wait()
    if !answer.found.isEmpty { fatalError("jws: " + answer.found.joined(separator: "; ")) }
}

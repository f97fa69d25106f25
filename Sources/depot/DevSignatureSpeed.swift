import ArgumentParser
import DepotTrust
import Foundation

#if canImport(Glibc)
import CoreFoundation
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `depot dev signature-speed`: how many ES256 checks of one App Store token each stage of the check makes per
/// second (bench/signature-check.sh runs it beside `openssl speed ecdsap256`).
struct DevSignatureSpeed: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signature-speed",
        abstract: "Time the ES256 check of one development-signed transaction, stage by stage (a benchmark).",
        discussion: """
            Stages, each adding work to the one before: verify (P-256 verify of a digest, parsed key and \
            signature), hash (+ SHA-256 of the signing input), depot (+ the signature read from raw r||s: Depot's \
            check with a kept key), key (+ the leaf's key built from its certificate), token (the whole \
            verification of the token with its chain kept). Prints one line per stage: \
            `stage=NAME checks=N held=N seconds=S cpu_seconds=C per_second=R`, the rate per second of the \
            process's CPU time, as `openssl speed` counts it.
            """
    )

    @Option(name: .long, help: "Wall-clock seconds to run each stage (ignored with --checks).")
    var seconds: Double = 3

    @Option(name: .long, help: "Run each stage exactly this many checks, untimed (for instruction counts).")
    var checks: Int?

    @Option(name: .long, parsing: .upToNextOption, help: "Stages to run (default: all, in order).")
    var stage: [String] = []

    @Flag(name: .long, help: "Print the verify stage's key, digest and signature in hex and stop.")
    var printFixture = false

    func validate() throws {
        guard seconds > 0, seconds <= 3600 else { throw ValidationError("--seconds must be in (0, 3600]") }
        if let checks, !(1...100_000_000).contains(checks) {
            throw ValidationError("--checks must be from 1 to 100000000")
        }
        _ = try stages
    }

    func run() async throws {
        let probe = try await SignatureCheckProbe()
        if printFixture {
            let fixture = probe.fixture
            print("key=\(Self.hex(fixture.publicKeyDER))")
            print("digest=\(Self.hex(fixture.digest))")
            print("signature=\(Self.hex(fixture.signatureDER))")
            return
        }
        for stage in try stages {
            let clock = ContinuousClock()
            let started = clock.now
            let cpuStarted = Self.processCPUSeconds()
            var checks = 0
            var held = 0
            if let fixed = self.checks {
                held = await probe.run(stage, times: fixed)
                checks = fixed
            } else {
                repeat {
                    held += await probe.run(stage, times: 64)
                    checks += 64
                } while clock.now - started < .milliseconds(Int64(seconds * 1000))
            }
            let cpuSeconds = Self.processCPUSeconds() - cpuStarted
            let elapsed = clock.now - started
            let elapsedSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let rate = Double(checks) / max(cpuSeconds, 1e-9)
            print(
                "stage=\(stage.rawValue) checks=\(checks) held=\(held)"
                    + " seconds=\(String(format: "%.3f", elapsedSeconds)) cpu_seconds=\(String(format: "%.3f", cpuSeconds))"
                    + " per_second=\(String(format: "%.1f", rate))")
        }
    }

    /// The stages `--stage` names, or all of them.
    private var stages: [SignatureCheckProbe.Stage] {
        get throws {
            guard !stage.isEmpty else { return SignatureCheckProbe.Stage.allCases }
            return try stage.map { name in
                guard let stage = SignatureCheckProbe.Stage(rawValue: name) else {
                    let names = SignatureCheckProbe.Stage.allCases.map(\.rawValue).joined(separator: ", ")
                    throw ValidationError("unknown stage \(name): one of \(names)")
                }
                return stage
            }
        }
    }

    /// The CPU time the process has used, user and system, as `openssl speed` counts its time.
    private static func processCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}

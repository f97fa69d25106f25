// The `grants` target of the trust fuzzer (Fuzz/TrustEntry.swift hands it each input): a broken invariant
// stops the process, which libFuzzer reports and keeps as a crash input.
func depotFuzzGrants(_ bytes: [UInt8]) {
    let found = GrantFuzzHarness.violations(bytes)
    if !found.isEmpty { fatalError("grants: " + found.joined(separator: "; ")) }
}

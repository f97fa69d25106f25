import DepotTestSupport
import Foundation
import Testing

/// `DEPOT_TEST_ENGINES` picks the engines a run tests: every one when unset or empty, the named ones in their
/// declared order otherwise, spaces around the commas allowed.
@Suite struct EngineSelectionTests {
    enum Kind: String, CaseIterable {
        case first
        case second
        case third
    }

    @Test func theVariablePicksTheEnginesInTheirOrder() {
        let all: [Kind] = EngineSelection.tested(from: [:])
        #expect(all == [.first, .second, .third])
        let empty: [Kind] = EngineSelection.tested(from: [EngineSelection.variable: ""])
        #expect(empty == Kind.allCases)
        let one: [Kind] = EngineSelection.tested(from: [EngineSelection.variable: "second"])
        #expect(one == [.second])
        let two: [Kind] = EngineSelection.tested(from: [EngineSelection.variable: "third, first"])
        #expect(two == [.first, .third])
    }

    @Test func theRunsEnginesComeFromTheSameRule() {
        // What this process tests is what the rule makes of its own environment.
        #expect(Engine.tested == EngineSelection.tested(from: ProcessInfo.processInfo.environment))
    }
}

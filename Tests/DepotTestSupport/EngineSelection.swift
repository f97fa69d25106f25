import Foundation

/// Which ledger engines a test run covers, from `DEPOT_TEST_ENGINES`: `sqlite`, `postgres`, or both comma-separated;
/// unset or empty, every engine. `Tests/tiers.sh` runs the fast tier on SQLite alone (no server needed) and the
/// PostgreSQL half of the ledger's suite in the integration tier.
package enum EngineSelection {
    /// The variable's name.
    package static let variable = "DEPOT_TEST_ENGINES"

    /// The engines `environment` selects, in their declared order. A name that is no engine stops the run: a typo
    /// must not pass by testing nothing.
    package static func tested<Engine: CaseIterable & RawRepresentable>(from environment: [String: String]) -> [Engine]
    where Engine.RawValue == String {
        guard let text = environment[variable], !text.isEmpty else { return Array(Engine.allCases) }
        let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let known = Set(Engine.allCases.map(\.rawValue))
        for name in names where !known.contains(name) {
            fatalError("\(variable)=\(text): \"\(name)\" is not one of \(known.sorted().joined(separator: ", "))")
        }
        return Engine.allCases.filter { names.contains($0.rawValue) }
    }
}

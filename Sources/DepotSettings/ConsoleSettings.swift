/// The publisher's console in the browser (`console` in `depot.json`).
package struct ConsoleSettings: Sendable, Equatable {
    /// Whether `/console` serves the page; on unless `console.enabled` is false.
    package var enabled: Bool

    /// Creates settings.
    package init(enabled: Bool) { self.enabled = enabled }

    /// What a `depot.json` without a `console` section gives: the console is served.
    package static let defaults = ConsoleSettings(enabled: true)
}

/// How log lines are written (`log.format` in `depot.json`).
package enum LogFormat: String, Sendable, CaseIterable {
    /// swift-log's stream format, one readable line per event (the default).
    case text
    /// One JSON object per line (`JSONLogHandler`).
    case json

}

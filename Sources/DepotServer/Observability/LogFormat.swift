import Logging

/// How log lines are written (`log.format` in `depot.json`).
package enum LogFormat: String, Sendable, CaseIterable {
    /// swift-log's stream format, one readable line per event (the default).
    case text
    /// One JSON object per line (`JSONLogHandler`).
    case json

    /// A handler for `label` at `level` in this format, writing to standard error, with secrets redacted, and
    /// with what `metadataProvider` adds (the request id, `Logger.MetadataProvider.requestId`) in every line.
    package func makeHandler(label: String, level: Logger.Level, metadataProvider: Logger.MetadataProvider? = nil) -> any LogHandler {
        var handler: any LogHandler
        switch self {
        case .text: handler = StreamLogHandler.standardError(label: label)
        case .json: handler = JSONLogHandler(label: label)
        }
        handler.logLevel = level
        return RedactingLogHandler(handler, metadataProvider: metadataProvider)
    }
}

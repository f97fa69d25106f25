import DepotTelemetry
import DepotSettings
import Logging

extension LogFormat {
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

import Logging

/// Passes every event on to another handler with its message, metadata and error text redacted
/// (`LogRedaction`); metadata set on the logger is kept as set and redacted in each line written.
package struct RedactingLogHandler: LogHandler {
    private var base: any LogHandler

    /// What is added to every line (the request id, for one), redacted at each event. The wrapped handler is
    /// given no provider of its own, so nothing provided reaches it unredacted.
    package var metadataProvider: Logger.MetadataProvider?

    /// Wraps `base`, adding what `metadataProvider` provides to every line.
    package init(_ base: any LogHandler, metadataProvider: Logger.MetadataProvider? = nil) {
        self.base = base
        self.base.metadataProvider = nil
        metadata = base.metadata
        self.base.metadata = [:]
        self.metadataProvider = metadataProvider
    }

    /// The wrapped handler's level.
    package var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }

    /// The logger's own metadata (a request id, for one), kept as set and redacted only when a line is written: a
    /// request that logs nothing at the level in force costs no redaction. The wrapped handler is given none of its
    /// own.
    package var metadata: Logger.Metadata = [:]

    /// One value of the logger's own metadata.
    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Passes `event` on, redacted, with the logger's own metadata (the event's values win).
    package func log(event: LogEvent) {
        var redacted = event
        redacted.message = "\(LogRedaction.redact(event.message.description))"
        var metadata = event.metadata.map(LogRedaction.redact) ?? [:]
        if !self.metadata.isEmpty {
            metadata.merge(LogRedaction.redact(self.metadata), uniquingKeysWith: { explicit, _ in explicit })
        }
        if let error = event.error {
            // The error's text is redacted here; the handler below is not given the error itself.
            metadata["error.message"] = .string(LogRedaction.redact("\(error)"))
            metadata["error.type"] = .string(String(reflecting: type(of: error)))
            redacted.error = nil
        }
        if let provided = metadataProvider?.get(), !provided.isEmpty {
            metadata.merge(LogRedaction.redact(provided), uniquingKeysWith: { explicit, _ in explicit })
        }
        redacted.metadata = metadata.isEmpty ? nil : metadata
        base.log(event: redacted)
    }
}

import Logging

/// Passes every event on to another handler with its message, metadata and error text redacted
/// (`LogRedaction`); metadata set on the logger is redacted as it is set.
package struct RedactingLogHandler: LogHandler {
    private var base: any LogHandler

    /// What is added to every line (the request id, for one), redacted at each event. The wrapped handler is
    /// given no provider of its own, so nothing provided reaches it unredacted.
    package var metadataProvider: Logger.MetadataProvider?

    /// Wraps `base`, adding what `metadataProvider` provides to every line.
    package init(_ base: any LogHandler, metadataProvider: Logger.MetadataProvider? = nil) {
        self.base = base
        self.base.metadataProvider = nil
        self.metadataProvider = metadataProvider
    }

    /// The wrapped handler's level.
    package var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }

    /// The wrapped handler's metadata, redacted as it is set.
    package var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = LogRedaction.redact(newValue) }
    }

    /// One metadata value of the wrapped handler, redacted as it is set.
    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue.map { LogRedaction.redact($0, key: key) } }
    }

    /// Passes `event` on, redacted.
    package func log(event: LogEvent) {
        var redacted = event
        redacted.message = "\(LogRedaction.redact(event.message.description))"
        var metadata = event.metadata.map(LogRedaction.redact) ?? [:]
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

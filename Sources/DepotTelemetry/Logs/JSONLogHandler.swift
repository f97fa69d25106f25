import DepotAPI
import DepotCore
import Foundation
import Logging
import Synchronization

/// Writes one JSON object per line: `{"time", "level", "label", "message", "metadata"}`, the time in ISO 8601
/// (UTC, milliseconds), the metadata as an object (nested values as objects and arrays, keys sorted). Lines
/// are written whole, one at a time, so that concurrent events never interleave.
package struct JSONLogHandler: LogHandler {
    /// The least severe level written.
    package var logLevel: Logger.Level = .info
    /// Metadata written with every event.
    package var metadata: Logger.Metadata = [:]
    /// Metadata gathered at each event (task-local context).
    package var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable (String) -> Void

    /// A handler for `label` writing lines to `write` (standard error by default).
    package init(
        label: String, metadataProvider: Logger.MetadataProvider? = nil,
        write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError
    ) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.write = write
    }

    /// One metadata value written with every event.
    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes `event` as one line.
    package func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided, uniquingKeysWith: { _, new in new }) }
        if let explicit = event.metadata { merged.merge(explicit, uniquingKeysWith: { _, new in new }) }
        if let error = event.error { merged["error.message"] = .string("\(error)") }
        write(Self.line(time: Date(), level: event.level, label: label, message: event.message.description, metadata: merged))
    }

    /// One event as a JSON line (ending in a newline).
    package static func line(time: Date, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) -> String {
        var line = "{\"time\":\(JSONText.quoted(time.formatted(Self.timeStyle)))"
        line += ",\"level\":\(JSONText.quoted(level.rawValue))"
        line += ",\"label\":\(JSONText.quoted(label))"
        line += ",\"message\":\(JSONText.quoted(message))"
        line += ",\"metadata\":"
        append(.dictionary(metadata), to: &line)
        line += "}\n"
        return line
    }

    private static let timeStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    private static func append(_ value: Logger.MetadataValue, to line: inout String) {
        switch value {
        case .string(let text):
            line += JSONText.quoted(text)
        case .stringConvertible(let convertible):
            line += JSONText.quoted(convertible.description)
        case .dictionary(let dictionary):
            line += "{"
            for (position, key) in dictionary.keys.sorted().enumerated() {
                if position > 0 { line += "," }
                line += JSONText.quoted(key) + ":"
                append(dictionary[key]!, to: &line)
            }
            line += "}"
        case .array(let values):
            line += "["
            for (position, element) in values.enumerated() {
                if position > 0 { line += "," }
                append(element, to: &line)
            }
            line += "]"
        }
    }

    /// Writes a line to standard error in one call, under a lock shared by every handler of the process.
    package static let standardError: @Sendable (String) -> Void = { line in
        outputLock.withLock { _ in
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    private static let outputLock = Mutex(())
}

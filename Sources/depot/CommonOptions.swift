import DepotTelemetry
import DepotSettings
import ArgumentParser
import DepotServer
import Foundation
import Logging

/// Options every command that reads configuration or state takes, with the same defaults as `serve`.
struct CommonOptions: ParsableArguments {
    @Option(name: .long, help: "Configuration directory or its depot.json (default: Config, or DEPOT_CONFIG).")
    var config: String?

    @Option(name: .customLong("data-dir"), help: "State directory (default: data, or DEPOT_DATA_DIR).")
    var dataDir: String?

    /// Loads the configuration with these options and the environment applied.
    func load(host: String? = nil, port: Int? = nil, contentDir: String? = nil) throws -> DepotConfiguration {
        do {
            return try ConfigurationLoader.load(
                overrides: ConfigurationOverrides(
                    configPath: config, host: host, port: port, dataDirectory: dataDir, contentDirectory: contentDir))
        } catch {
            throw ValidationError(error.message)
        }
    }
}

/// The process-wide logger, writing to standard error in `format` (`log.format`) at the level of
/// `DEPOT_LOG_LEVEL` (default info), with grants, keys, tokens and signed data redacted, and each line logged
/// while a request is served carrying its id.
enum DepotLogging {
    static func makeLogger(format: LogFormat = .text) -> Logger {
        let level = ProcessInfo.processInfo.environment["DEPOT_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        LoggingSystem.bootstrap(
            { label, provider in format.makeHandler(label: label, level: level, metadataProvider: provider) },
            metadataProvider: .requestId)
        return Logger(label: "depot")
    }
}

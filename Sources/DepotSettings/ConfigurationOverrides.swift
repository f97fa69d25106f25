/// Settings given on the command line or in the environment, applied over the configuration files.
///
/// Command-line options win over environment variables, which win over the files.
package struct ConfigurationOverrides: Sendable {
    /// `--config`, or `DEPOT_CONFIG`: the configuration directory or its `depot.json`.
    package var configPath: String?
    /// `--host`, or `DEPOT_HOST`.
    package var host: String?
    /// `--port`, or `DEPOT_PORT`.
    package var port: Int?
    /// `--data-dir`, or `DEPOT_DATA_DIR`.
    package var dataDirectory: String?
    /// `--content-dir`, or `DEPOT_CONTENT_DIR`.
    package var contentDirectory: String?
    /// `--database-url`, or `DEPOT_DATABASE_URL`.
    package var databaseURL: String?

    /// Creates overrides; nil fields leave the file's value.
    package init(
        configPath: String? = nil, host: String? = nil, port: Int? = nil,
        dataDirectory: String? = nil, contentDirectory: String? = nil, databaseURL: String? = nil
    ) {
        self.databaseURL = databaseURL
        self.configPath = configPath
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.contentDirectory = contentDirectory
    }

    /// These overrides with the gaps filled from `DEPOT_*` environment variables.
    package func fillingGaps(
        fromEnvironment environment: [String: String]
    ) throws(ConfigurationError)
        -> ConfigurationOverrides
    {
        var filled = self
        filled.configPath = configPath ?? environment["DEPOT_CONFIG"]
        filled.host = host ?? environment["DEPOT_HOST"]
        if filled.port == nil, let text = environment["DEPOT_PORT"] {
            guard let port = Int(text), (0...65535).contains(port) else {
                throw ConfigurationError("DEPOT_PORT must be a port number from 0 to 65535, not \"\(text)\"")
            }
            filled.port = port
        }
        filled.dataDirectory = dataDirectory ?? environment["DEPOT_DATA_DIR"]
        filled.contentDirectory = contentDirectory ?? environment["DEPOT_CONTENT_DIR"]
        filled.databaseURL = databaseURL ?? environment["DEPOT_DATABASE_URL"]
        return filled
    }
}

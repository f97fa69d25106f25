import DepotSettings

extension LiveServer {
    /// The configuration a live server's `depot.json` gives with `settings` added to its top-level object, read
    /// as `depot serve` reads it (nothing is started); its refusal, when it refuses.
    static func loadConfiguration(
        _ settings: String, _ name: String = #function, environment: [String: String] = [:]
    ) throws -> DepotConfiguration {
        let scratch = try ScratchDirectory(name)
        defer { scratch.remove() }
        try writeConfiguration(in: scratch, idleTimeoutSeconds: 5, settings: settings)
        return try ConfigurationLoader.load(
            overrides: ConfigurationOverrides(configPath: scratch.path + "/Config"), environment: environment)
    }

    /// The message `loadConfiguration(settings)` refuses with, or nil when it accepts.
    static func configurationRefusal(_ settings: String, _ name: String = #function) -> String? {
        do {
            _ = try loadConfiguration(settings, name)
            return nil
        } catch {
            return (error as? ConfigurationError)?.message ?? "\(error)"
        }
    }
}

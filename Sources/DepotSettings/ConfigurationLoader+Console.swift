extension ConfigurationFile {
    /// The `console` section: `{"enabled": false}` turns `/console` off.
    struct Console: Decodable {
        var enabled: Bool?
    }
}

extension ConfigurationLoader {
    /// The `console` section: `enabled` (default true) says whether `/console` serves the publisher's console.
    static func consoleSettings(_ console: ConfigurationFile.Console?) -> ConsoleSettings {
        ConsoleSettings(enabled: console?.enabled ?? ConsoleSettings.defaults.enabled)
    }
}

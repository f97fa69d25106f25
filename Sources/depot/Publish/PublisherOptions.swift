import ArgumentParser
import Foundation

/// The options that say which Depot server a publisher command talks to, and with which key.
struct PublisherOptions: ParsableArguments {
    @Option(help: "The Depot server (default: DEPOT_SERVER, or http://127.0.0.1:8080).")
    var server: String?

    @Option(help: "The publisher key (default: DEPOT_PUBLISHER_KEY).")
    var key: String?

    /// The server's base URL (without a trailing `/`) and the key, from the options or else the environment.
    func resolved() throws(PublishError) -> (server: String, key: String) {
        let environment = ProcessInfo.processInfo.environment
        guard let key = key ?? environment["DEPOT_PUBLISHER_KEY"], !key.isEmpty else {
            throw PublishError("no publisher key: pass --key or set DEPOT_PUBLISHER_KEY (make one with `depot keys create`)")
        }
        let server = (server ?? environment["DEPOT_SERVER"] ?? "http://127.0.0.1:8080")
            .trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        guard server.hasPrefix("http://") || server.hasPrefix("https://") else {
            throw PublishError("--server must be an http:// or https:// URL, not \(server)")
        }
        return (server, key)
    }
}

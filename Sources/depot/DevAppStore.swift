import DepotSettings
import ArgumentParser
import DepotAppStoreDouble
import DepotServer
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// `depot dev appstore --port N [--data-dir D]`: a local double of the App Store Server API.
///
/// On start it makes (once, under the data directory) a development API key, then prints as its first line
/// of output the JSON object to put under `appStoreServerAPI` in `Config/depot.json`, then serves until
/// SIGINT or SIGTERM. See `AppStoreDouble` for the endpoints and the `/_double/...` control routes.
struct DevAppStore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "appstore",
        abstract: "Run a local App Store Server API double; prints the appStoreServerAPI configuration for it first."
    )

    @OptionGroup var common: CommonOptions

    @Option(name: .long, help: "Address to listen on (default 127.0.0.1).")
    var host: String = "127.0.0.1"

    @Option(name: .long, help: "Port to listen on; 0 picks a free one.")
    var port: Int

    @Option(name: .customLong("bundle-id"), help: "The bundle id tokens must carry (default: the configuration's app.bundleId).")
    var bundleId: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
    }

    func run() async throws {
        let configuration = try common.load()
        let bundleId = bundleId ?? configuration.appBundleId
        let key: AppStoreDoubleKey
        do {
            key = try AppStoreDoubleKey.loadOrCreate(dataDirectory: configuration.dataDirectory)
        } catch {
            throw ValidationError(error.description)
        }
        let logger = DepotLogging.makeLogger()
        let double = AppStoreDouble(token: AppStoreDoubleToken(key: key, bundleId: bundleId))
        let host = host
        let app = double.makeApplication(host: host, port: port, logger: logger) { bound in
            let shown = host.contains(":") ? "[\(host)]" : host
            // Written straight to the descriptor: the first line must reach a pipe at once, not when a buffer fills.
            let line = AppStoreDoubleSetup.configurationJSON(key: key, bundleId: bundleId, baseURL: "http://\(shown):\(bound)")
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
            logger.info("App Store Server API double listening", metadata: ["port": "\(bound)", "keyId": "\(key.keyId)"])
        }
        try await app.runService()
    }
}

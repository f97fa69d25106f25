import ArgumentParser
import DepotGooglePlayDouble
import DepotServer
import DepotSettings
import Foundation
import Hummingbird
import Logging

/// `depot dev googleplay --port N [--data-dir D]`: a local double of the Google Play Developer API.
///
/// On start it makes (once, in the data directory) a service account key file, then, once listening, writes the
/// token endpoint's URI into that file and prints as its first line of output the JSON object to put under
/// `googlePlay.developerAPI` in `Config/depot.json`, then serves until SIGINT or SIGTERM. See `GooglePlayDouble`
/// for the endpoints and the `/_double/...` control routes.
struct DevGooglePlay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "googleplay",
        abstract: "Run a local Google Play Developer API double; prints the googlePlay.developerAPI configuration for it first."
    )

    @OptionGroup var common: CommonOptions

    @Option(name: .long, help: "Address to listen on (default 127.0.0.1).")
    var host: String = "127.0.0.1"

    @Option(name: .long, help: "Port to listen on; 0 picks a free one.")
    var port: Int

    @Option(name: .customLong("package-name"), help: "The package name the double answers for.")
    var packageName: String = GooglePlayDoubleSetup.defaultPackageName

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
        guard !packageName.isEmpty else { throw ValidationError("--package-name must not be empty") }
    }

    func run() async throws {
        let configuration = try common.load()
        let account: GooglePlayDoubleServiceAccount
        do {
            account = try GooglePlayDoubleServiceAccount.loadOrCreate(dataDirectory: configuration.dataDirectory)
        } catch {
            throw ValidationError(error.description)
        }
        let logger = DepotLogging.makeLogger()
        let double = GooglePlayDouble(serviceAccount: account, packageName: packageName)
        let host = host
        let app = double.makeApplication(host: host, port: port, logger: logger) { bound in
            let baseURL = GooglePlayDoubleSetup.baseURL(host: host, port: bound)
            do {
                try account.writeKeyFile(tokenURI: GooglePlayDoubleSetup.tokenURL(baseURL: baseURL))
            } catch {
                // Clients would sign for a token URI the double does not answer to: better not to serve at all.
                FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
                Foundation.exit(1)
            }
            let path = account.keyFilePath ?? ""
            // Written straight to the descriptor: the first line must reach a pipe at once, not when a buffer fills.
            let line = GooglePlayDoubleSetup.configurationJSON(serviceAccountKeyPath: path, baseURL: baseURL)
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
            logger.info(
                "Google Play Developer API double listening",
                metadata: ["port": "\(bound)", "packageName": "\(double.packageName)", "privateKeyId": "\(account.privateKeyId)"])
        }
        try await app.runService()
    }
}

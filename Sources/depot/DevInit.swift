import ArgumentParser
import DepotServer
import DepotTrust
import Foundation

/// `depot dev init`: makes the development root, intermediate and leaf under the data directory.
struct DevInit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Make the development certificate authority (root, intermediate, leaf) under the data directory."
    )

    @OptionGroup var common: CommonOptions

    func run() async throws {
        let configuration = try common.load()
        let directory = TrustSetup.developmentDirectory(configuration)
        _ = try DevelopmentCertificateAuthority.loadOrCreate(directory: directory)
        print("development certificate authority in \(directory)")
        print((directory as NSString).appendingPathComponent(DevelopmentCertificateAuthority.FileName.root))
    }
}

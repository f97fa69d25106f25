import DepotSettings
import ArgumentParser
import DepotCore
import DepotServer
import DepotTrust
import Foundation

/// `depot dev grant --digest D [--ttl SECONDS]`: prints a grant for one bundle, for local testing.
struct DevGrant: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grant",
        abstract: "Print a grant for a bundle, signed with the configured active key (last line of output)."
    )

    @OptionGroup var common: CommonOptions

    @Option(name: .long, help: "The bundle's digest (lowercase hex SHA-256).")
    var digest: String

    @Option(name: .long, help: "Lifetime in seconds (default: the configured grant lifetime).")
    var ttl: Int64?

    func validate() throws {
        _ = try bundleDigest
        if let ttl, ttl <= 0 { throw ValidationError("--ttl must be positive") }
    }

    func run() async throws {
        let configuration = try common.load()
        let authority = try DepotApplication.grantAuthority(configuration.grants)
        let expiresAt = DepotApplication.systemClock() + (ttl ?? configuration.grants.lifetimeSeconds)
        print(authority.issue(digest: try bundleDigest, expiresAt: expiresAt))
    }

    /// The bundle `--digest` names.
    private var bundleDigest: BundleDigest {
        get throws {
            guard let bundle = BundleDigest(hex: digest) else {
                throw ValidationError("--digest must be 64 lowercase hexadecimal characters")
            }
            return bundle
        }
    }
}

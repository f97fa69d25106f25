import ArgumentParser
import DepotSettings
import DepotSystem
import DepotTrust
import Foundation

/// `depot dev sign-account-assertion --key FILE --kid ID --account UUID [--audience A] [--lifetime S]`: prints an
/// account assertion (ES256 JWS) on its last line, as a studio's backend issues one for a restore by account.
struct DevSignAccountAssertion: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-account-assertion",
        abstract: "Print an account assertion (ES256 JWS) for a restore by account, signed with a P-256 private key."
    )

    @OptionGroup var common: CommonOptions

    @Option(name: .long, help: "The P-256 private key in PEM (PKCS #8 or SEC 1).")
    var key: String

    @Flag(
        name: .customLong("create-key"),
        help: "Make the key when --key names no file, and write its public key beside it (FILE.pub.pem).")
    var createKey = false

    @Option(name: .long, help: "The key id (kid) restore.accountAssertion.keys names the public key by.")
    var kid: String

    @Option(name: .long, help: "The account: the UUID the app set at purchase (obfuscatedAccountId, appAccountToken).")
    var account: String

    @Option(name: .long, help: "The audience (default: restore.accountAssertion.audience, else app.bundleId).")
    var audience: String?

    @Option(name: .long, help: "Lifetime in seconds (default 300).")
    var lifetime: Int64 = 300

    func validate() throws {
        guard (1...AccountAssertionVerifier.maximumLifetimeSeconds).contains(lifetime) else {
            throw ValidationError("--lifetime must be from 1 to \(AccountAssertionVerifier.maximumLifetimeSeconds)")
        }
        guard let uuid = UUID(uuidString: account), account.utf8.count == 36 else {
            throw ValidationError("--account must be a UUID")
        }
        if uuid.uuidString.lowercased() != account { throw ValidationError("--account must be a UUID in lowercase") }
        guard !kid.isEmpty, kid.utf8.count <= AccountAssertionKey.maximumIdLength else {
            throw ValidationError("--kid must be 1 to \(AccountAssertionKey.maximumIdLength) bytes")
        }
    }

    func run() async throws {
        let audience: String
        if let given = self.audience {
            audience = given
        } else {
            let configuration = try common.load()
            audience = configuration.accountAssertion?.audience ?? configuration.appBundleId
        }
        if createKey, !FileManager.default.fileExists(atPath: key) {
            let made = DevelopmentAccountAssertionIssuer.generated(keyId: kid, audience: audience)
            // Created with its mode and never through a link or over a file (O_CREAT | O_EXCL): the private key is
            // never readable by others, not even for a moment.
            do {
                try POSIX.createFile(key, bytes: Array(made.privateKeyPEM.utf8), mode: 0o600)
                try POSIX.createFile(key + ".pub.pem", bytes: Array(made.publicKeyPEM.utf8), mode: 0o644)
            } catch {
                throw ValidationError("cannot write \(key): \(error)")
            }
            print("made \(key) and its public key \(key).pub.pem")
        }
        guard let data = FileManager.default.contents(atPath: key), let pem = String(data: data, encoding: .utf8) else {
            throw ValidationError("cannot read \(key) (give --create-key to make it)")
        }
        let issuer: DevelopmentAccountAssertionIssuer
        do {
            issuer = try DevelopmentAccountAssertionIssuer(pem: pem, keyId: kid, audience: audience)
        } catch {
            throw ValidationError("\(key) \(error.reason)")
        }
        print(try issuer.sign(account: account, issuedAt: Int64(Date().timeIntervalSince1970), lifetime: lifetime))
    }
}

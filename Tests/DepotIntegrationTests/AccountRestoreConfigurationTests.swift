@testable import DepotServerTestSupport
import DepotSettings
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

/// `restore.accountAssertion`: the studio backend's keys, the audience and the longest lifetime, read as `depot
/// serve` reads them; every mistake stops the start with the setting named.
@Suite("Restore by account configuration")
struct AccountRestoreConfigurationTests {
    /// A public key file under a scratch directory of the test, and its path.
    static func withKey(_ name: String = #function, _ body: (String, DevelopmentAccountAssertionIssuer) throws -> Void) throws {
        let scratch = try ScratchDirectory(name + "-key")
        defer { scratch.remove() }
        let issuer = DevelopmentAccountAssertionIssuer.generated(keyId: "studio-1", audience: "a")
        try scratch.write("restore-es256.pem", issuer.publicKeyPEM)
        try scratch.write("not-a-key.pem", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
        try body(scratch.path, issuer)
    }

    @Test func theSectionIsReadWithItsDefaults() throws {
        try Self.withKey { directory, issuer in
            #expect(try LiveServer.loadConfiguration("").accountAssertion == nil, "absent: off")
            let configuration = try LiveServer.loadConfiguration(
                #""restore": {"accountAssertion": {"keys": [{"id": "studio-1", "publicKeyFile": "\#(directory)/restore-es256.pem"}]}}"#)
            let settings = try #require(configuration.accountAssertion)
            #expect(settings.audience == "com.example.depot.test", "the app's bundle id by default")
            #expect(settings.maxLifetimeSeconds == 600)
            #expect(settings.keys.map(\.id) == ["studio-1"])
            let now = Int64(Date().timeIntervalSince1970)
            var audienced = issuer
            audienced.audience = "com.example.depot.test"
            let token = try audienced.sign(account: "7e3fb20b-4cdb-47cc-936d-99d65f608138", issuedAt: now)
            #expect(try settings.verifier.verify(token, now: now).account == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
            let given = try LiveServer.loadConfiguration(
                #""restore": {"accountAssertion": {"keys": [{"id": "studio-1", "publicKeyFile": "\#(directory)/restore-es256.pem"}], "audience": "https://studio.example/depot", "maxLifetimeSeconds": 60}}"#
            )
            #expect(given.accountAssertion?.audience == "https://studio.example/depot")
            #expect(given.accountAssertion?.maxLifetimeSeconds == 60)
        }
    }

    @Test func everyMistakeStopsTheStartNamingTheSetting() throws {
        try Self.withKey { directory, _ in
            let key = #"{"id": "studio-1", "publicKeyFile": "\#(directory)/restore-es256.pem"}"#
            let cases: [(settings: String, names: String)] = [
                (#"{"keys": []}"#, "restore.accountAssertion.keys"),
                (#"{}"#, "restore.accountAssertion.keys"),
                (#"{"keys": [{"publicKeyFile": "\#(directory)/restore-es256.pem"}]}"#, "keys[0].id"),
                (#"{"keys": [{"id": "", "publicKeyFile": "\#(directory)/restore-es256.pem"}]}"#, "keys[0].id"),
                (#"{"keys": [{"id": "studio-1"}]}"#, "keys[0].publicKeyFile"),
                (#"{"keys": [{"id": "studio-1", "publicKeyFile": "\#(directory)/missing.pem"}]}"#, "keys[0].publicKeyFile"),
                (#"{"keys": [{"id": "studio-1", "publicKeyFile": "\#(directory)/not-a-key.pem"}]}"#, "keys[0].publicKeyFile"),
                (#"{"keys": [\#(key), \#(key)]}"#, "twice"),
                (#"{"keys": [\#(key)], "audience": ""}"#, "restore.accountAssertion.audience"),
                (#"{"keys": [\#(key)], "maxLifetimeSeconds": 0}"#, "restore.accountAssertion.maxLifetimeSeconds"),
                (#"{"keys": [\#(key)], "maxLifetimeSeconds": 86401}"#, "restore.accountAssertion.maxLifetimeSeconds"),
            ]
            for item in cases {
                let message = LiveServer.configurationRefusal(#""restore": {"accountAssertion": \#(item.settings)}"#)
                #expect(message?.contains(item.names) == true, "\(item.settings): \(message ?? "accepted")")
            }
        }
    }
}

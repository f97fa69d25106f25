@testable import DepotServerTestSupport
import DepotSettings
import DepotServer
import Foundation
import Testing

/// `server.tls`: the certificate chain and key are read, parsed and matched at start; every fault stops the start
/// with a message naming the setting and the file.
@Suite("TLS configuration")
struct TLSConfigurationTests {
    /// Loads the test configuration with `tls` as the `server.tls` object (JSON), after `prepare` wrote files.
    static func load(
        _ name: String = #function, tls: String, prepare: (ScratchDirectory) throws -> Void = { _ in }
    ) throws -> (Result<DepotConfiguration, ConfigurationError>, ScratchDirectory) {
        let scratch = try ScratchDirectory(name)
        try prepare(scratch)
        try LiveServer.writeConfiguration(in: scratch, idleTimeoutSeconds: 5, serverSettings: "\"tls\": \(tls)")
        let result = Result { () throws(ConfigurationError) -> DepotConfiguration in
            try ConfigurationLoader.load(
                overrides: ConfigurationOverrides(configPath: scratch.path + "/Config"), environment: [:])
        }
        return (result, scratch)
    }

    /// `server.tls` naming the chain and key `TestCertificates.write(into:)` puts under `Config/tls/`.
    static let chainAndKey = "{\"certificateChainPath\": \"tls/chain.pem\", \"privateKeyPath\": \"tls/key.pem\"}"

    static func message(_ result: Result<DepotConfiguration, ConfigurationError>) -> String? {
        if case .failure(let error) = result { return error.message }
        return nil
    }

    /// The load was refused with a message holding every one of `parts`.
    static func expectRefused(
        _ result: Result<DepotConfiguration, ConfigurationError>, saying parts: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let message = try #require(Self.message(result), sourceLocation: sourceLocation)
        for part in parts { #expect(message.contains(part), "\(message)", sourceLocation: sourceLocation) }
    }

    @Test func pathsAreTakenFromTheConfigurationDirectory() throws {
        let certificates = try TestCertificates()
        let (result, scratch) = try Self.load(
            tls: Self.chainAndKey
        ) { scratch in _ = try certificates.write(into: scratch) }
        defer { scratch.remove() }
        let tls = try #require(try result.get().tls)
        #expect(tls.certificateChainPath == scratch.path + "/Config/tls/chain.pem")
        #expect(tls.privateKeyPath == scratch.path + "/Config/tls/key.pem")
    }

    @Test func withoutTheSectionTheServerSpeaksPlainHTTP() throws {
        let scratch = try ScratchDirectory(#function)
        defer { scratch.remove() }
        try LiveServer.writeConfiguration(in: scratch, idleTimeoutSeconds: 5)
        let configuration = try ConfigurationLoader.load(
            overrides: ConfigurationOverrides(configPath: scratch.path + "/Config"), environment: [:])
        #expect(configuration.tls == nil)
    }

    @Test func aMissingPathIsNamed() throws {
        let (result, scratch) = try Self.load(tls: "{\"certificateChainPath\": \"tls/chain.pem\"}")
        defer { scratch.remove() }
        try Self.expectRefused(result, saying: ["server.tls.privateKeyPath must name a PEM file"])
    }

    @Test func anUnreadableFileIsNamed() throws {
        let certificates = try TestCertificates()
        let (result, scratch) = try Self.load(
            tls: "{\"certificateChainPath\": \"tls/absent.pem\", \"privateKeyPath\": \"tls/key.pem\"}"
        ) { scratch in _ = try certificates.write(into: scratch) }
        defer { scratch.remove() }
        try Self.expectRefused(result, saying: ["server.tls.certificateChainPath: cannot read", "tls/absent.pem"])
    }

    @Test(arguments: ["not a certificate\n", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"])
    func aMalformedChainIsNamed(chain: String) throws {
        let certificates = try TestCertificates()
        let (result, scratch) = try Self.load(
            tls: Self.chainAndKey
        ) { scratch in
            _ = try certificates.write(into: scratch)
            try scratch.write("Config/tls/chain.pem", chain)
        }
        defer { scratch.remove() }
        try Self.expectRefused(result, saying: ["server.tls.certificateChainPath", "PEM certificate"])
    }

    @Test func aMalformedKeyIsNamed() throws {
        let certificates = try TestCertificates()
        let (result, scratch) = try Self.load(
            tls: Self.chainAndKey
        ) { scratch in
            _ = try certificates.write(into: scratch)
            try scratch.write("Config/tls/key.pem", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        }
        defer { scratch.remove() }
        try Self.expectRefused(result, saying: ["server.tls.privateKeyPath", "is not a PEM private key"])
    }

    @Test func aKeyOfAnotherCertificateIsRefused() throws {
        let certificates = try TestCertificates()
        let other = try TestCertificates()
        let (result, scratch) = try Self.load(
            tls: Self.chainAndKey
        ) { scratch in
            _ = try certificates.write(into: scratch)
            try scratch.write("Config/tls/key.pem", other.keyPEM)
        }
        defer { scratch.remove() }
        try Self.expectRefused(result, saying: ["does not belong to the first certificate"])
    }

    /// The real binary: a bad key stops `depot serve` with the message and a failing status, never a crash.
    @Test func theServerRefusesToStartWithAMismatchedKey() async throws {
        let certificates = try TestCertificates()
        let other = try TestCertificates()
        let scratch = try ScratchDirectory(#function)
        defer { scratch.remove() }
        let members = try certificates.write(into: scratch)
        try scratch.write("Config/tls/key.pem", other.keyPEM)
        try LiveServer.writeConfiguration(in: scratch, idleTimeoutSeconds: 5, serverSettings: members)
        try scratch.write("content/.keep", "")
        let server = try DepotProcess.launch(
            binary: DepotProcess.debugBinary(),
            arguments: [
                "--config", scratch.path + "/Config", "--data-dir", scratch.path + "/data", "--content-dir",
                scratch.path + "/content",
            ],
            environment: [:])
        let exit = await server.waitForExit(timeout: .seconds(120))
        server.killIfRunning()
        #expect(exit?.reason == .exit && exit?.status != 0, "\(String(describing: exit)) \(server.logText)")
        #expect(server.logText.contains("does not belong to the first certificate"), "\(server.logText)")
        #expect(server.port == nil)
    }
}

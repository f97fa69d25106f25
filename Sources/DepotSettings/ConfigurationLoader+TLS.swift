import Foundation
import NIOSSL

/// Reading and checking the `server.tls` section of `depot.json`.
extension ConfigurationLoader {
    /// The TLS settings, or nil when `server.tls` is absent. Both files are read and parsed and the key is matched
    /// with the chain's first certificate here, so that a missing, unreadable, malformed or mismatched file stops
    /// the start with a message naming it. Relative paths are taken from the configuration directory.
    static func tlsSettings(
        _ section: ConfigurationFile.Server.TLS?, directory: String, in file: String
    ) throws(ConfigurationError) -> TLSSettings? {
        guard let section else { return nil }
        let chainPath = try path(section.certificateChainPath, setting: "server.tls.certificateChainPath", directory: directory, in: file)
        let keyPath = try path(section.privateKeyPath, setting: "server.tls.privateKeyPath", directory: directory, in: file)
        let chainBytes = try contents(of: chainPath, setting: "server.tls.certificateChainPath", in: file)
        let keyBytes = try contents(of: keyPath, setting: "server.tls.privateKeyPath", in: file)

        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(chainBytes)
        } catch {
            throw ConfigurationError(
                "\(file): server.tls.certificateChainPath: \(chainPath) is not a PEM certificate chain (\(error))")
        }
        guard !chain.isEmpty else {
            throw ConfigurationError(
                "\(file): server.tls.certificateChainPath: \(chainPath) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        if String(decoding: keyBytes, as: UTF8.self).contains("ENCRYPTED") {
            throw ConfigurationError(
                "\(file): server.tls.privateKeyPath: \(keyPath) is encrypted; give the key without a passphrase (mode 0600)")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(bytes: keyBytes, format: .pem)
        } catch {
            throw ConfigurationError(
                "\(file): server.tls.privateKeyPath: \(keyPath) is not a PEM private key (RSA, ECDSA or Ed25519) (\(error))")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = ["http/1.1"]
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            // BoringSSL refuses a key whose public half is not the leaf's, and a leaf it cannot serve with.
            throw ConfigurationError(
                "\(file): server.tls: the private key \(keyPath) does not belong to the first certificate of \(chainPath), or that certificate cannot serve TLS (\(error))"
            )
        }
        return TLSSettings(certificateChainPath: chainPath, privateKeyPath: keyPath, context: context)
    }

    /// A non-empty path from `setting`, taken relative to the configuration directory.
    private static func path(
        _ given: String?, setting: String, directory: String, in file: String
    ) throws(ConfigurationError) -> String {
        guard let given, !given.isEmpty else {
            throw ConfigurationError("\(file): \(setting) must name a PEM file")
        }
        return given.hasPrefix("/") ? given : (directory as NSString).appendingPathComponent(given)
    }

    /// The bytes of a file a setting names.
    private static func contents(of path: String, setting: String, in file: String) throws(ConfigurationError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("\(file): \(setting): cannot read \(path)")
        }
        return Array(data)
    }
}

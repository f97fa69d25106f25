import NIOSSL

/// TLS on Depot's own port (`server.tls`), for deployments without a proxy in front: HTTP/1.1 over TLS 1.2 or
/// later, with the certificate chain and private key read (and checked against each other) at start.
package struct TLSSettings: Sendable {
    /// The PEM file of the certificate chain, leaf first, as resolved against the configuration directory.
    package var certificateChainPath: String
    /// The PEM file of the leaf certificate's private key, as resolved against the configuration directory.
    package var privateKeyPath: String
    /// The server context every accepted connection's TLS handler is made from.
    package var context: NIOSSLContext
}

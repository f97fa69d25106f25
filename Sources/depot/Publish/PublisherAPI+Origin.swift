import Foundation

/// The origin of a URL (RFC 6454 §4: scheme, host and port, the port defaulted by the scheme), compared
/// lowercased; nil for a URL that has none (no scheme or no host).
struct Origin: Equatable, CustomStringConvertible {
    let scheme: String
    let host: String
    let port: Int

    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        guard let port = url.port ?? ["http": 80, "https": 443][scheme] else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    var description: String { "\(scheme)://\(host):\(port)" }
}

extension PublisherAPI {
    /// The URL a request for `target` goes to: a path (`/v1/...`) is put after the server's address; anything
    /// else (an upload's `Location`, absolute or relative) is resolved against it (RFC 3986 §5) and must lie
    /// on the server's own origin, since every request carries the publisher key. A `Location` naming
    /// another host, port or scheme is refused before anything is sent there.
    func url(for target: String) throws(PublishError) -> String {
        if target.hasPrefix("/") && !target.hasPrefix("//") { return server + target }
        guard let base = URL(string: server + "/"), let own = Origin(base) else {
            throw PublishError("the server address \(server) cannot be read")
        }
        guard let resolved = URL(string: target, relativeTo: base)?.absoluteURL, let origin = Origin(resolved) else {
            throw PublishError("the server gave an upload address that cannot be read: \(target.prefix(200))")
        }
        guard origin == own else {
            throw PublishError(
                "the server gave an upload address on another origin (\(origin), not \(own)); "
                    + "the publisher key is sent only to the server it was given for")
        }
        return resolved.absoluteString
    }
}

/// The parts of an endpoint URL a request is built from: `http` or `https`, the host and the port when it is not the
/// scheme's own.
struct ObjectStoreEndpoint: Sendable, Equatable {
    var scheme: String
    var host: String
    var port: Int?

    /// `http(s)://host[:port]`, with at most a trailing `/`.
    init(_ given: String) throws(ObjectStoreError) {
        // An endpoint carrying credentials (`https://id:secret@host`) is refused without repeating it.
        let text = given.contains("@") ? "(with user information)" : given
        guard !given.contains("@") else { throw .configuration("the endpoint must not carry user information") }
        var rest = Substring(given)
        if rest.hasPrefix("https://") {
            scheme = "https"
            rest = rest.dropFirst(8)
        } else if rest.hasPrefix("http://") {
            scheme = "http"
            rest = rest.dropFirst(7)
        } else {
            throw .configuration("the endpoint \(text) is not an http:// or https:// URL")
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("?"), !rest.contains("#") else {
            throw .configuration("the endpoint \(text) must be scheme, host and port, without a path")
        }
        if let colon = rest.lastIndex(of: ":"), !rest.hasSuffix("]") {
            guard let port = Int(rest[rest.index(after: colon)...]), (1...65_535).contains(port) else {
                throw .configuration("the endpoint \(text) has no valid port")
            }
            host = String(rest[..<colon])
            self.port = (scheme == "http" && port == 80) || (scheme == "https" && port == 443) ? nil : port
        } else {
            host = String(rest)
            port = nil
        }
        guard !host.isEmpty else { throw .configuration("the endpoint \(text) has no host") }
    }

    /// `host[:port]`, as the `Host` header carries it.
    var authority: String { port.map { "\(host):\($0)" } ?? host }
}

import DepotSettings
import Foundation
import HTTPTypes
import NIOCore

/// The origin (`scheme://host[:port]`) a client reached Depot at, for the absolute URLs an answer names (tus
/// creation's `Location`, absolute as tusd, the protocol's reference server, answers it).
///
/// Reads the request's authority (`Host`); from a peer listed in `server.trustedProxies` also `Forwarded`
/// (RFC 7239 §5.3 `host`, §5.4 `proto`) and `X-Forwarded-Host`, `X-Forwarded-Proto`, each taken from its first
/// element (the one the proxy that faced the client recorded). A peer off the list is never believed for them.
/// A host that is not a plain `host[:port]` (RFC 3986 §3.2.2, §3.2.3) is never echoed: the address the connection
/// was accepted on stands in for it.
struct RequestOrigin: Sendable {
    /// Whether Depot itself speaks TLS on its port (`server.tls`): the scheme when no trusted proxy says otherwise.
    let tls: Bool
    /// The proxies whose forwarded fields are believed.
    let trustedProxies: TrustedProxies

    /// The origin of a request with header fields `headers` and authority `authority`, from `peer`, accepted on
    /// `local`.
    func origin(authority: String?, headers: HTTPFields, peer: String, local: SocketAddress?) -> String {
        var scheme = tls ? "https" : "http"
        var host = authority.flatMap { Self.isAuthority($0) ? $0 : nil }
        if trustedProxies.isTrusted(peer) {
            let forwarded = Self.forwarded(headers[values: .forwarded])
            let proto = forwarded.proto ?? headers[values: .xForwardedProto].first.map { Self.firstElement($0) }
            if let proto = proto?.lowercased(), proto == "http" || proto == "https" { scheme = proto }
            let forwardedHost = forwarded.host ?? headers[values: .xForwardedHost].first.map { Self.firstElement($0) }
            if let forwardedHost, Self.isAuthority(forwardedHost) { host = forwardedHost }
        }
        return scheme + "://" + (host ?? Self.authority(of: local))
    }

    /// `host:port` of the address a connection was accepted on (IPv6 in brackets), or `localhost` without one.
    static func authority(of address: SocketAddress?) -> String {
        guard let address, let ip = address.ipAddress, let port = address.port else { return "localhost" }
        if case .v6 = address { return "[\(ip)]:\(port)" }
        return "\(ip):\(port)"
    }

    /// The first comma-separated element of a field value, trimmed.
    static func firstElement(_ value: String) -> String {
        trimmed(value.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")

    }

    /// `proto` and `host` of the first element of `Forwarded` (RFC 7239 §4), quotes removed.
    static func forwarded(_ values: [String]) -> (proto: String?, host: String?) {
        guard let first = values.first else { return (nil, nil) }
        var proto: String?
        var host: String?
        for pair in firstElement(first).split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            var value = trimmed(parts[1])
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            switch trimmed(parts[0]).lowercased() {
            case "proto": proto = value
            case "host": host = value
            default: break
            }
        }
        return (proto, host)
    }

    /// Whether `text` is a plain `host[:port]`: a DNS name or IPv4 address (letters, digits, `-`, `.`, `_`, `~`), or
    /// an IPv6 literal in brackets, then an optional port of 1 to 5 digits up to 65535; at most 261 bytes.
    static func isAuthority(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 261 else { return false }
        var hostEnd: Int
        if bytes[0] == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")), close > 1 else { return false }
            guard bytes[1..<close].allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else { return false }
            hostEnd = close + 1
        } else {
            hostEnd = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.count
            guard hostEnd > 0, hostEnd <= 253, bytes[..<hostEnd].allSatisfy(isNameByte) else { return false }
        }
        guard hostEnd < bytes.count else { return true }
        guard bytes[hostEnd] == UInt8(ascii: ":") else { return false }
        let port = bytes[(hostEnd + 1)...]
        guard (1...5).contains(port.count), port.allSatisfy({ (0x30...0x39).contains($0) }) else { return false }
        return port.reduce(0) { $0 * 10 + Int($1 - 0x30) } <= 65535
    }

    /// `text` without leading and trailing spaces and tabs.
    private static func trimmed(_ text: Substring) -> String {
        var view = text
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" { view = view.dropLast() }
        return String(view)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }
}

extension HTTPField.Name {
    /// `Forwarded` (RFC 7239): what proxies recorded of the request they forwarded.
    static let forwarded = HTTPField.Name("Forwarded")!
    /// `X-Forwarded-Proto`: the scheme the client used with the proxy.
    static let xForwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    /// `X-Forwarded-Host`: the host the client asked the proxy for.
    static let xForwardedHost = HTTPField.Name("X-Forwarded-Host")!
}

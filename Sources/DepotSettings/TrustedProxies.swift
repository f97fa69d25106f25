import Foundation
import NIOCore

/// The proxies (load balancers, CDN edges) whose `X-Forwarded-For` says who the client is.
///
/// Behind a proxy every request comes from the proxy's address, so irregular-activity accounting would
/// count one address for all customers. Only a peer on this list is believed: the client is the rightmost
/// address of its `X-Forwarded-For` that is not itself a trusted proxy (the entries to its left can be
/// written by anyone). A peer off the list is the client, whatever headers it sends.
package struct TrustedProxies: Sendable {
    /// One trusted network: an address and how many leading bits must match.
    struct Network: Sendable, Equatable {
        var bytes: [UInt8]
        var prefixLength: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefixLength
            for (a, b) in zip(address, bytes) where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                guard a & mask == b & mask else { return false }
                remaining -= bits
            }
            return true
        }
    }

    private let networks: [Network]

    /// No proxy is trusted: the peer is always the client.
    package static let none = TrustedProxies(networks: [])

    private init(networks: [Network]) { self.networks = networks }

    /// Parses addresses (`10.0.0.7`, `::1`) and networks (`10.0.0.0/8`, `fd00::/8`); throws the entry it cannot read.
    package init(_ entries: [String]) throws(ConfigurationError) {
        var networks: [Network] = []
        for entry in entries {
            let parts = entry.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2, let bytes = Self.addressBytes(String(parts[0])) else {
                throw ConfigurationError("server.trustedProxies: \"\(entry)\" is not an IP address or network")
            }
            var prefix = bytes.count * 8
            if parts.count == 2 {
                guard let length = Int(parts[1]), (0...bytes.count * 8).contains(length) else {
                    throw ConfigurationError("server.trustedProxies: \"\(entry)\" has an invalid prefix length")
                }
                prefix = length
            }
            networks.append(Network(bytes: bytes, prefixLength: prefix))
        }
        self.networks = networks
    }

    /// Whether an address belongs to a trusted proxy.
    package func isTrusted(_ address: String) -> Bool {
        guard let bytes = Self.addressBytes(address) else { return false }
        return networks.contains { $0.contains(bytes) }
    }

    /// The client's address: `peer`, or, when `peer` is a trusted proxy, the rightmost address of the
    /// `X-Forwarded-For` field values that is not a trusted proxy. An unreadable entry stops the walk:
    /// the address to its right is the last one a trusted proxy vouched for.
    package func clientAddress(peer: String, forwardedFor: [String]) -> String {
        guard !networks.isEmpty, isTrusted(peer) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        var client = peer
        for hop in hops.reversed() {
            guard Self.addressBytes(hop) != nil else { break }
            client = hop
            guard isTrusted(hop) else { break }
        }
        return client
    }

    /// The address's bytes (4 for IPv4, 16 for IPv6), or nil when it is not a literal address.
    static func addressBytes(_ text: String) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.count <= 45, let address = try? SocketAddress(ipAddress: text, port: 0) else {
            return nil
        }
        switch address {
        // The address fields are read at their fixed offsets (4 in `sockaddr_in`, 8 in `sockaddr_in6`, on Linux
        // and Darwin alike) rather than by member, which the C modules' import visibility makes fragile.
        case .v4(let v4):
            return withUnsafeBytes(of: v4.address) { Array($0[4..<8]) }
        case .v6(let v6):
            return withUnsafeBytes(of: v6.address) { Array($0[8..<24]) }
        case .unixDomainSocket:
            return nil
        }
    }
}

import Synchronization

/// Counts the open connections, in total and per client address, and admits a new one only under both limits.
/// The limit per address is off unless configured (then addresses are not counted at all): behind a carrier's or
/// an office's NAT many buyers share one address.
///
/// Proxies listed in `server.trustedProxies` carry many clients on their connections, so they are held to the
/// total only. Every refusal is counted by its reason.
package final class ConnectionGate: Sendable {
    /// What the gate decided for a new connection.
    package enum Admission: Equatable, Sendable {
        /// Under both limits: the connection is served, and must be released when it closes.
        case admitted
        /// The server already holds `maxConnections` connections.
        case overTotal
        /// This address already holds `maxConnectionsPerAddress` connections.
        case overPerAddress
    }

    /// Counts of what the gate did, for operators.
    package struct Counts: Equatable, Sendable {
        /// Connections open now.
        package var open = 0
        /// Connections admitted since start.
        package var admitted = 0
        /// Connections refused because the server was full.
        package var refusedTotal = 0
        /// Connections refused because their address held too many.
        package var refusedPerAddress = 0
    }

    private struct State {
        var perAddress: [String: Int] = [:]
        var counts = Counts()
    }

    private let maxConnections: Int
    private let maxPerAddress: Int?
    private let exempt: @Sendable (String) -> Bool
    private let state = Mutex(State())

    /// A gate admitting at most `maxConnections` in all and `maxPerAddress` per address (nil: no limit per
    /// address); addresses for which `exempt` is true (trusted proxies) count towards the total only.
    package init(maxConnections: Int, maxPerAddress: Int?, exempt: @escaping @Sendable (String) -> Bool = { _ in false }) {
        self.maxConnections = maxConnections
        self.maxPerAddress = maxPerAddress
        self.exempt = exempt
    }

    /// Decides for a new connection from `address` (nil when the peer has no IP address, such as a Unix
    /// socket: counted in the total only). An admitted connection holds its place until `release(address:)`.
    package func admit(address: String?) -> Admission {
        let perAddressKey = perAddressKey(address)
        return state.withLock { state in
            guard state.counts.open < maxConnections else {
                state.counts.refusedTotal += 1
                return .overTotal
            }
            if let key = perAddressKey, let maxPerAddress {
                let held = state.perAddress[key, default: 0]
                guard held < maxPerAddress else {
                    state.counts.refusedPerAddress += 1
                    return .overPerAddress
                }
                state.perAddress[key] = held + 1
            }
            state.counts.open += 1
            state.counts.admitted += 1
            return .admitted
        }
    }

    /// Gives back the place of an admitted connection from `address` once it closed.
    package func release(address: String?) {
        let perAddressKey = perAddressKey(address)
        state.withLock { state in
            state.counts.open -= 1
            if let key = perAddressKey, let held = state.perAddress[key] {
                state.perAddress[key] = held > 1 ? held - 1 : nil
            }
        }
    }

    /// The address a connection is counted under, or nil when it counts towards the total only (no limit per
    /// address, no IP address, or a trusted proxy).
    private func perAddressKey(_ address: String?) -> String? {
        guard maxPerAddress != nil, let address, !exempt(address) else { return nil }
        return address
    }

    /// What the gate did so far.
    package var counts: Counts { state.withLock { $0.counts } }
}

import Foundation
import PostgresNIO

/// Where a PostgreSQL ledger lives, read from a libpq-style URL:
///
/// - `postgres://user:password@host:port/database?sslmode=disable` (TCP; `postgresql://` too);
/// - `postgres:///database?host=/run/postgresql&port=5432&user=depot` (a unix socket: `host` names the
///   socket's directory, as libpq's does, or the socket file itself when it ends in `.s.PGSQL.<port>`).
///
/// Query parameters read: `host`, `port`, `user`, `password`, `dbname`, `sslmode` (`disable`, `prefer`
/// (the default), `require`, `verify-ca`, `verify-full`; like libpq, only `verify-*` check certificates),
/// `connect_timeout` (seconds to wait for a connection, default 30: a loaded server can be slow to accept).
/// Without a user, `PGUSER`, then `USER`, then `postgres`.
package struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
    /// How to use TLS (`sslmode`).
    package enum TLSMode: String, Sendable {
        case disable, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    /// The TCP host, when not a unix socket.
    package var host: String?
    /// The TCP port, or the number in the socket's name.
    package var port: Int
    /// The socket file, for a unix socket.
    package var unixSocketPath: String?
    /// The role to connect as.
    package var username: String
    /// The password, if any.
    package var password: String?
    /// The database; nil means the server's default (the role's name).
    package var database: String?
    /// How to use TLS (TCP only).
    package var tlsMode: TLSMode
    /// How long to wait for a connection to be established (`connect_timeout`, in seconds).
    package var connectTimeoutSeconds: Int64

    /// The wait for a connection when the URL names none.
    package static let defaultConnectTimeoutSeconds: Int64 = 30

    /// Parses a URL; fails with `unavailable` on anything it cannot use.
    package init(_ string: String) throws(LedgerError) {
        guard let components = URLComponents(string: string),
            let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql"
        else {
            throw .unavailable("not a postgres:// URL")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] {
            query[item.name] = item.value ?? ""
        }
        let environment = ProcessInfo.processInfo.environment
        username =
            components.user.flatMap { $0.isEmpty ? nil : $0 } ?? query["user"] ?? environment["PGUSER"]
            ?? environment["USER"] ?? "postgres"
        password = components.password ?? query["password"]
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = query["dbname"] ?? (path.isEmpty ? nil : path)
        if let portText = query["port"] {
            guard let port = Int(portText), (1...65535).contains(port) else {
                throw .unavailable("bad port \(portText)")
            }
            self.port = port
        } else {
            self.port = components.port ?? 5432
        }
        guard let mode = TLSMode(rawValue: query["sslmode"] ?? "prefer") else {
            throw .unavailable("unsupported sslmode \(query["sslmode"] ?? "")")
        }
        tlsMode = mode
        if let timeoutText = query["connect_timeout"] {
            guard let seconds = Int64(timeoutText), (1...3600).contains(seconds) else {
                throw .unavailable("bad connect_timeout \(timeoutText): whole seconds from 1 to 3600")
            }
            connectTimeoutSeconds = seconds
        } else {
            connectTimeoutSeconds = Self.defaultConnectTimeoutSeconds
        }
        let hostText = query["host"] ?? components.host.flatMap { $0.isEmpty ? nil : $0 }
        if let hostText, hostText.hasPrefix("/") {
            host = nil
            let last = hostText.split(separator: "/").last ?? ""
            unixSocketPath = last.hasPrefix(".s.PGSQL.") ? hostText : "\(hostText)/.s.PGSQL.\(port)"
        } else if let hostText {
            host = hostText
            unixSocketPath = nil
        } else {
            // libpq's default without a host: the Debian socket directory.
            host = nil
            unixSocketPath = "/var/run/postgresql/.s.PGSQL.\(port)"
        }
    }

    /// The same server with another database (tests make one per test).
    package func with(database: String?) -> PostgresURL {
        var copy = self
        copy.database = database
        return copy
    }

    /// The client configuration this URL describes.
    package var configuration: PostgresClient.Configuration {
        var configuration = baseConfiguration
        configuration.options.connectTimeout = .seconds(connectTimeoutSeconds)
        return configuration
    }

    private var baseConfiguration: PostgresClient.Configuration {
        if let unixSocketPath {
            return PostgresClient.Configuration(
                unixSocketPath: unixSocketPath, username: username, password: password, database: database)
        }
        let tls: PostgresClient.Configuration.TLS =
            switch (tlsMode, tlsConfiguration) {
            case (.disable, _), (_, nil): .disable
            case (.prefer, let configuration?): .prefer(configuration)
            case (_, let configuration?): .require(configuration)
            }
        return PostgresClient.Configuration(
            host: host ?? "localhost", port: port, username: username, password: password, database: database, tls: tls)
    }

    /// The configuration of a single connection to the same place (used to check the server is there).
    package func connectionConfiguration(
        connectTimeout: TimeAmount? = nil
    ) throws
        -> PostgresConnection.Configuration
    {
        var configuration: PostgresConnection.Configuration
        if let unixSocketPath {
            configuration = PostgresConnection.Configuration(
                unixSocketPath: unixSocketPath, username: username, password: password, database: database)
        } else {
            let tls: PostgresConnection.Configuration.TLS =
                switch (tlsMode, tlsConfiguration) {
                case (.disable, _), (_, nil): .disable
                case (.prefer, let configuration?): .prefer(try NIOSSLContext(configuration: configuration))
                case (_, let configuration?): .require(try NIOSSLContext(configuration: configuration))
                }
            configuration = PostgresConnection.Configuration(
                host: host ?? "localhost", port: port, username: username, password: password, database: database,
                tls: tls)
        }
        configuration.options.connectTimeout = connectTimeout ?? .seconds(connectTimeoutSeconds)
        return configuration
    }

    /// TLS settings for `sslmode`; like libpq, only `verify-ca` and `verify-full` check the certificate.
    private var tlsConfiguration: TLSConfiguration? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch tlsMode {
        case .disable: return nil
        case .prefer, .require: configuration.certificateVerification = .none
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .verifyFull: break
        }
        return configuration
    }

    /// The URL without its password, for logs and errors.
    package var description: String {
        let location = unixSocketPath.map { "socket \($0)" } ?? "\(host ?? "localhost"):\(port)"
        return "postgres \(username)@\(location)/\(database ?? "")"
    }
}

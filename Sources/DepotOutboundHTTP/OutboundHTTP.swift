import AsyncHTTPClient
import NIOCore
import NIOPosix

/// The HTTP client Depot's calls to its dependencies go through (the object store, the App Store Server API, Google's
/// APIs, a purge endpoint) unless another is given.
///
/// Its connection attempts fail at once when the endpoint refuses them, or when it does not accept within
/// ``connectTimeout``: each caller's own retry policy and timeout then decide how long a call waits for a dependency
/// that is down. AsyncHTTPClient's shared client tries to connect again and again until the request's whole timeout
/// has passed (30 s by default, each retry included): a refused dependency held every request that needed it that
/// long.
public enum OutboundHTTP {
    /// The shared client; it lives as long as the process.
    public static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = connectTimeout
        return HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }()

    /// How long a connection to a dependency may take to be accepted.
    public static let connectTimeout: TimeAmount = .seconds(5)
}

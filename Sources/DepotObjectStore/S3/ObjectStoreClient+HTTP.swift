import AsyncHTTPClient
import NIOCore
import NIOPosix

extension ObjectStoreClient {
    /// The HTTP client object store calls go through unless another is given: one whose connection attempts fail at
    /// once when the endpoint refuses them or does not accept within `connectTimeout`, so that the client's own retry
    /// policy (a few attempts, a few seconds in all) decides how long a call waits for an unreachable bucket.
    /// AsyncHTTPClient's shared client tries to connect again and again until the request's whole timeout has passed
    /// (30 s by default), each attempt of the policy included: minutes for a bucket that is down.
    public static let defaultHTTP: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = connectTimeout
        return HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }()

    /// How long a connection to the object store may take to be accepted.
    public static let connectTimeout: TimeAmount = .seconds(5)
}

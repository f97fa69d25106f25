import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app side of Depot: reads the product lists, redeems and restores signed transactions, downloads
/// bundles with resume and progress, verifies and unpacks them, and confirms delivery.
///
/// One client talks to one server. It keeps the validators of the product lists between calls, so that
/// reading them again costs a 304 when nothing changed. Everything else it needs across restarts lives in
/// files beside the destination (see `BundleDownload`).
public final class DepotClient: Sendable {
    /// The server's base address, such as `https://depot.example.com`.
    public let server: URL
    /// The session every request goes through.
    let session: URLSession
    /// The product lists last read, with their validators.
    let lists: ListCache
    /// How a download retries a broken connection.
    public let retry: RetryPolicy

    /// A client of `server`. `session` defaults to one without a URL cache (the client keeps validators
    /// itself and must see the server's 304s).
    public init(server: URL, session: URLSession? = nil, retry: RetryPolicy = RetryPolicy()) {
        self.server = server
        self.session = session ?? Self.makeSession()
        self.lists = ListCache()
        self.retry = retry
    }

    /// The session a client uses unless given one: it neither caches nor stores cookies, and gives up on a
    /// request after `requestTimeoutSeconds` without a byte (60 by default, as URLSession does).
    public static func makeSession(requestTimeoutSeconds: TimeInterval = 60) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = requestTimeoutSeconds
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpShouldSetCookies = false
        return URLSession(configuration: configuration)
    }

    /// `path` (which may carry a query) resolved against the server.
    func address(_ path: String) throws(DepotClientError) -> URL {
        guard let url = URL(string: path, relativeTo: server)?.absoluteURL else {
            throw DepotClientError(.badResponse, "the server gave an address that cannot be read: \(path)")
        }
        return url
    }
}

import DepotAPI
import DepotCore
import DepotServices
import Foundation
import Hummingbird
import NIOCore

/// The request context of Depot's routes: Hummingbird's core storage plus the client's address
/// (irregular-activity accounting) and a body limit fit for JSON requests.
struct DepotRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer's IP address, or `unknown`.
    let clientAddress: String
    /// The request's connection: the address it was accepted on, and the events the upload routes send down it.
    let channel: any Channel
    /// The publisher `PublisherAuthMiddleware` authenticated, on `/v1/publisher/...` routes.
    var publisher: AuthenticatedPublisher?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
        channel = source.channel
        publisher = nil
    }

    /// The address the connection was accepted on (the origin an absolute URL falls back to).
    var localAddress: SocketAddress? { channel.localAddress }

    /// JSON requests are small; a restore of many transactions is the largest.
    var maxUploadSize: Int { 4 << 20 }
}

extension DepotRequestContext {
    /// The `{id}` path parameter, percent-decoded (RFC 3986 §2.1): a transaction id with characters that
    /// need encoding reaches the route as the id itself. Invalid encoding is a 400.
    func transactionIdParameter() throws -> String {
        let raw = try parameters.require("id")
        guard let decoded = raw.removingPercentEncoding, !decoded.isEmpty else {
            throw DepotError.badRequest("the transaction id in the path is not valid percent-encoded UTF-8")
        }
        return decoded
    }
}

import Hummingbird
import NIOCore

/// The request context of Depot's routes: Hummingbird's core storage plus the client's address
/// (irregular-activity accounting) and a body limit fit for JSON requests.
struct DepotRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer's IP address, or `unknown`.
    let clientAddress: String

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// JSON requests are small; a restore of many transactions is the largest.
    var maxUploadSize: Int { 4 << 20 }
}

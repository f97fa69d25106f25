import DepotOutboundHTTP
import AsyncHTTPClient
import DepotServices
import NIOCore
import NIOHTTP1

/// POSTs the purge's JSON to the configured URL with `Content-Type: application/json` and the configured
/// extra fields (an API token, say). Any 2xx is success; the answer's body is not read.
struct PurgePostSender: PurgeSender {
    /// Where purges go.
    let url: String
    /// Extra request fields.
    let headers: [String: String]
    /// The client (the process-wide shared one).
    var client: HTTPClient = OutboundHTTP.client

    func send(_ purge: PurgeRequest, body: [UInt8], timeoutSeconds: Int) async throws(PurgeFailure) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "depot-purge")
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let status: HTTPResponseStatus
        do {
            let response = try await client.execute(request, timeout: .seconds(Int64(timeoutSeconds)))
            status = response.status
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw PurgeFailure("the purge URL did not answer within \(timeoutSeconds) seconds")
        } catch {
            throw PurgeFailure("the purge URL could not be reached: \(error)")
        }
        guard (200..<300).contains(status.code) else {
            throw PurgeFailure("the purge URL answered \(status.code) \(status.reasonPhrase)")
        }
    }
}

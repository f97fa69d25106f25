import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP exchange with Google: status, body (at most 1 MiB) and `Retry-After`, or a transport or timeout
/// error.
enum GooglePlayHTTP {
    static func execute(
        _ request: HTTPClientRequest, http: HTTPClient, timeout: TimeAmount
    ) async throws(GooglePlayAPIError)
        -> (status: Int, body: Data, retryAfter: String?)
    {
        do {
            let response = try await http.execute(request, timeout: timeout)
            let payload = try await response.body.collect(upTo: 1 << 20)
            return (Int(response.status.code), Data(payload.readableBytesView), response.headers.first(name: "Retry-After"))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            throw GooglePlayAPIError(.timeout)
        } catch {
            throw GooglePlayAPIError(.transport("\(error)"))
        }
    }
}

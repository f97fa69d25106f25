import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension DepotClient {
    /// Sends `request` and returns the body and response; a transport failure is a `network` error.
    func exchange(_ request: URLRequest) async throws(DepotClientError) -> (Data, HTTPURLResponse) {
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw DepotClientError(.network, "cannot reach \(server.absoluteString): \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw DepotClientError(.badResponse, "the answer from \(server.absoluteString) is not HTTP")
        }
        return (data, http)
    }

    /// POSTs `body` as JSON to `path` and decodes a 200 answer as `T`; any other status is a `server` error.
    func post<T: Decodable>(_ path: String, _ body: some Encodable, as type: T.Type) async throws(DepotClientError) -> T {
        var request = URLRequest(url: try address(path))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        do {
            request.httpBody = try JSONEncoder().encode(body)
        } catch {
            throw DepotClientError(.invalidArgument, "the request cannot be encoded as JSON: \(error)")
        }
        let (data, response) = try await exchange(request)
        guard response.statusCode == 200 else {
            throw Self.failure(status: response.statusCode, body: data, doing: "POST \(path.prefix { $0 != "?" })")
        }
        return try Self.decode(type, from: data, doing: "POST \(path)")
    }

    /// Decodes a JSON answer; anything unreadable is a `badResponse` error.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, doing what: String) throws(DepotClientError) -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw DepotClientError(.badResponse, "the answer to \(what) is not the JSON the protocol describes")
        }
    }

    /// The error for a non-success answer: the server's own message when its body has one.
    static func failure(status: Int, body: Data, doing what: String) -> DepotClientError {
        if let error = try? JSONDecoder().decode(ErrorBody.self, from: body) {
            return DepotClientError(
                .server, "the server refused \(what): \(error.error.message)", status: status, serverCode: error.error.code)
        }
        return DepotClientError(.server, "the server answered \(what) with HTTP \(status)", status: status)
    }
}

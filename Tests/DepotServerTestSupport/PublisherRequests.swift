import DepotLedger
import DepotServer
import DepotServices
import Foundation
import Testing

/// Publisher requests over `RawHTTPClient`, a key made for the test, and a pack directory to stage.
enum PublisherRequests {
    /// A new key recorded in `ledger`; returns its text.
    static func makeKey(
        _ ledger: any Ledger, publisher: String = "studio", prefixes: [String] = []
    ) async throws -> (key: String, id: String) {
        let (key, record) = PublisherKey.make(publisher: publisher, productPrefixes: prefixes, now: DepotApplication.systemClock())
        try await ledger.createPublisherKey(record)
        return (key, record.id)
    }

    /// A request with a bearer key and an optional JSON body.
    static func request(_ method: String, _ path: String, key: String?, json: String? = nil, headers: [String] = []) -> String {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if let key { text += "Authorization: Bearer \(key)\r\n" }
        for header in headers { text += header + "\r\n" }
        if let json {
            text += "Content-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\n\r\n\(json)"
        } else {
            text += "Content-Length: 0\r\n\r\n"
        }
        return text
    }

    /// The error code of an error answer.
    static func errorCode(_ response: RawHTTPClient.Response) -> String? {
        (try? JSONAnswer(response))?["error.code"]?.string
    }

    /// Writes a pack (`pack.json` and `Contents/`) under the scratch directory and returns its path.
    static func writePack(
        in scratch: ScratchDirectory, at relative: String, productId: String, contentId: String? = nil, version: String,
        publishedAt: String = "2026-03-01T09:00:00Z", files: [String: [UInt8]]
    ) throws -> String {
        var manifest = "{\"productId\": \"\(productId)\", \"version\": \"\(version)\", "
        if let contentId { manifest += "\"contentId\": \"\(contentId)\", " }
        manifest += "\"publishedAt\": \"\(publishedAt)\"}"
        try scratch.write("\(relative)/pack.json", manifest)
        for (path, bytes) in files { try scratch.write("\(relative)/Contents/\(path)", bytes) }
        return scratch.path + "/" + relative
    }
}

/// A server's port, with one new connection per request: a test whose steps between requests may take
/// longer than the server's idle timeout (processes to run, bundles to build on a loaded machine) never
/// finds its connection closed.
struct Endpoint {
    let port: Int

    /// Sends `text` on a new connection and reads the answer.
    func request(_ text: String) async throws -> RawHTTPClient.Response {
        try await RawHTTPClient(port: port).request(text)
    }
}

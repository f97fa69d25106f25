import DepotAPI
import DepotConsole
import DepotSettings
import Foundation
import Hummingbird
import HTTPTypes
import NIOCore

/// `GET /console` (and `/console/`): the publisher's console page; `GET /console/{file}`: its style sheet, scripts
/// and icon, all built into the binary (`ConsoleAssets`). HEAD answers the same fields without the body.
///
/// Reads `If-None-Match` (a matching ETag is 304, RFC 9110 §13.1.2); writes `Content-Type`, `ETag`,
/// `Cache-Control` and the security fields of `ConsoleHeaders` on every answer, a 404 included. When
/// `console.enabled` is false nothing is registered, so `/console` is the router's 404 like any unknown address.
struct ConsoleRoutes: Sendable {
    /// Whether the console is served.
    let settings: ConsoleSettings

    /// Registers the routes when the console is enabled.
    func register(on router: Router<DepotRequestContext>) {
        guard settings.enabled else { return }
        // The router takes `/console/` for `/console` (a trailing slash is ignored).
        for method in [HTTPRequest.Method.get, .head] {
            router.on("/console", method: method) { request, context in try Self.answer("index.html", request, context) }
            router.on("/console/:file", method: method) { request, context in
                try Self.answer(context.parameters.get("file") ?? "", request, context)
            }
        }
    }

    /// The answer for the file `name` to `request`: the file, 304, or Depot's JSON 404 `not-found`.
    static func answer(_ name: String, _ request: Request, _ context: DepotRequestContext) throws -> Response {
        guard let asset = ConsoleAssets.byName[name] else {
            var response = try DepotErrorResponse(DepotError(.notFound, "the console has no file by this name"))
                .response(from: request, context: context)
            ConsoleHeaders.secure(&response.headers)
            return response
        }
        var fields = HTTPFields()
        ConsoleHeaders.secure(&fields)
        fields[.cacheControl] = ConsoleHeaders.cacheControl
        fields[.eTag] = asset.etag
        if let given = request.headers[.ifNoneMatch], matches(given, asset.etag) {
            return Response(status: .notModified, headers: fields)
        }
        fields[.contentType] = asset.contentType
        fields[.contentLength] = String(asset.bytes.count)
        // RFC 9110 §9.3.2: HEAD answers the GET's fields, Content-Length included, without the body.
        let body = request.method == .head ? ByteBuffer() : ByteBuffer(bytes: asset.bytes)
        return Response(status: .ok, headers: fields, body: .init(byteBuffer: body))
    }

    /// RFC 9110 §13.1.2: `*` or a list holding the ETag, compared weakly (a `W/` prefix is ignored).
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { item in
            let tag = item.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}

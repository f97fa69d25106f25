import DepotAPI
import DepotCore
import NIOCore
import NIOHTTP1

extension BundleResponseWriter {
    /// Field naming the refusal's code on a refused grant check, so an edge can pass it on in its own answer
    /// (nginx's `auth_request` drops the subrequest's body).
    static let checkErrorField = "X-Depot-Error"

    /// The bytes of a grant check's answer: 204 with no body, or Depot's JSON error, each with the
    /// `Cache-Control` an edge keeps it by (`max-age=N`, or `no-store`), and the answer's status. `requestId` is
    /// the request's valid `X-Request-Id`: echoed on a 204, and naming a refusal (a fresh one without it).
    static func renderCheck(
        _ answer: GrantCheckAnswer, request: AnswerFraming, date: String, keepAlive: Bool, requestId: String?,
        allocator: ByteBufferAllocator
    ) -> (ByteBuffer, [BodyPart], status: Int) {
        let head: HTTPResponseHead
        let body: [BodyPart]
        switch answer {
        case .allowed(let seconds, let purgeTag):
            var headers = HTTPHeaders()
            headers.add(name: "Date", value: date)
            headers.add(name: "Cache-Control", value: cacheControl(seconds))
            if let purgeTag { headers.add(name: purgeTag.name, value: purgeTag.value) }
            if let requestId { headers.add(name: "X-Request-Id", value: requestId) }
            addConnection(&headers, request: request, keepAlive: keepAlive)
            // RFC 9110 §8.6: no Content-Length on a 204.
            head = HTTPResponseHead(version: request.version, status: .noContent, headers: headers)
            body = []
        case .refused(let error, let extraHeaders, let seconds):
            let fields = [(checkErrorField, error.code)] + extraHeaders.map { ($0.name, $0.value) }
            (head, body) = renderError(
                error, extraHeaders: fields, request: request, date: date, keepAlive: keepAlive,
                cacheControl: cacheControl(seconds), requestId: requestId ?? RequestId.generate(), allocator: allocator)
        }
        var buffer = allocator.buffer(capacity: 256)
        ResponseHeadBytes.write(head, into: &buffer)
        return (buffer, body, Int(head.status.code))
    }

    private static func cacheControl(_ seconds: Int64) -> String {
        seconds > 0 ? "max-age=\(seconds)" : "no-store"
    }
}

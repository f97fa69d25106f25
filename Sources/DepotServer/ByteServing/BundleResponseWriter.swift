import DepotCore
import DepotHTTP
import NIOCore
import NIOHTTP1

/// Turns a `BundleAnswer` into the bytes of an HTTP/1.1 response: the serialized head, then buffers and
/// file regions.
///
/// Every answer carries `Date` and `Content-Length` (never chunked); a HEAD answer has the same header
/// fields as the GET one and no body (RFC 9110 §9.3.2).
struct BundleResponseWriter {
    /// One piece of a response body.
    enum BodyPart {
        case bytes(ByteBuffer)
        case file(NIOFileHandle, offset: Int64, length: Int64)
    }

    /// The serialized response head and the body parts for an answer.
    static func render(
        _ answer: BundleAnswer, request: HTTPRequestHead, date: String, keepAlive: Bool,
        files: LoopFileCache, allocator: ByteBufferAllocator
    ) -> (ByteBuffer, [BodyPart]) {
        if case .complete(let bundle, _) = answer, request.version == .http1_1,
            let handle = try? files.handle(digest: bundle.version.digest, path: bundle.path)
        {
            // The common case: the head prepared for this bundle, plus Date (and Connection: close).
            var buffer = allocator.buffer(capacity: bundle.completeHeadPrefix.count + 64)
            buffer.writeBytes(bundle.completeHeadPrefix)
            ResponseHeadBytes.writeField("Date", date, into: &buffer)
            if !keepAlive { buffer.writeStaticString("Connection: close\r\n") }
            buffer.writeStaticString("\r\n")
            if request.method == .HEAD { return (buffer, []) }
            if let body = files.smallBody(
                digest: bundle.version.digest, path: bundle.path, size: bundle.version.size, allocator: allocator)
            {
                return (buffer, [.bytes(body)])
            }
            return (buffer, [.file(handle, offset: 0, length: bundle.version.size)])
        }
        let (head, body) = renderParts(answer, request: request, date: date, keepAlive: keepAlive, files: files, allocator: allocator)
        var buffer = allocator.buffer(capacity: 512)
        ResponseHeadBytes.write(head, into: &buffer)
        return (buffer, body)
    }

    /// The response head and body parts for an answer.
    static func renderParts(
        _ answer: BundleAnswer, request: HTTPRequestHead, date: String, keepAlive: Bool,
        files: LoopFileCache, allocator: ByteBufferAllocator
    ) -> (HTTPResponseHead, [BodyPart]) {
        switch answer {
        case .error(let error, let extraHeaders):
            return renderError(error, extraHeaders: extraHeaders, request: request, date: date, keepAlive: keepAlive, allocator: allocator)
        case .complete(let bundle, _):
            let handle: NIOFileHandle
            do {
                handle = try files.handle(digest: bundle.version.digest, path: bundle.path)
            } catch {
                return unavailable(request: request, date: date, keepAlive: keepAlive, allocator: allocator)
            }
            var headers = bundle.completeHeaders
            headers.add(name: "Date", value: date)
            addConnection(&headers, request: request, keepAlive: keepAlive)
            let head = HTTPResponseHead(version: request.version, status: .ok, headers: headers)
            return (head, request.method == .HEAD ? [] : [.file(handle, offset: 0, length: bundle.version.size)])
        case .bytes(let plan, let bundle, _):
            let handle: NIOFileHandle
            do {
                handle = try files.handle(digest: bundle.version.digest, path: bundle.path)
            } catch {
                return unavailable(request: request, date: date, keepAlive: keepAlive, allocator: allocator)
            }
            var headers = HTTPHeaders()
            headers.reserveCapacity(plan.headers.count + 3)
            headers.add(name: "Date", value: date)
            for field in plan.headers { headers.add(name: field.name, value: field.value) }
            if plan.status == 200 || plan.status == 206 || plan.status == 304 {
                for field in bundle.originFields { headers.add(name: field.name, value: field.value) }
            }
            var body: [BodyPart] = []
            switch plan.body {
            case .none:
                if plan.status == 412 || plan.status == 416 {
                    let error = plan.status == 412
                        ? DepotError(status: 412, code: "precondition-failed", message: "a precondition of the request does not hold for this bundle")
                        : DepotError(status: 416, code: "range-not-satisfiable", message: "no requested range lies inside the bundle")
                    let buffer = allocator.buffer(string: error.jsonBody)
                    headers.add(name: "Content-Type", value: "application/json")
                    headers.add(name: "Content-Length", value: String(buffer.readableBytes))
                    body.append(.bytes(buffer))
                }
            case .file(let offset, let length):
                body.append(.file(handle, offset: offset, length: length))
            case .segments(let segments):
                for segment in segments {
                    switch segment {
                    case .literal(let bytes): body.append(.bytes(allocator.buffer(bytes: bytes)))
                    case .file(let offset, let length): body.append(.file(handle, offset: offset, length: length))
                    }
                }
            }
            addConnection(&headers, request: request, keepAlive: keepAlive)
            let head = HTTPResponseHead(version: request.version, status: .init(statusCode: plan.status), headers: headers)
            return (head, request.method == .HEAD ? [] : body)
        }
    }

    /// 503 when a stored bundle cannot be opened (a disk problem): the client may retry.
    private static func unavailable(
        request: HTTPRequestHead, date: String, keepAlive: Bool, allocator: ByteBufferAllocator
    ) -> (HTTPResponseHead, [BodyPart]) {
        let failure = DepotError(status: 503, code: "bundle-unavailable", message: "the bundle cannot be read right now")
        return renderError(
            failure, extraHeaders: [("Retry-After", "5")], request: request, date: date, keepAlive: keepAlive,
            allocator: allocator)
    }

    /// An error answer: Depot's JSON body, `Cache-Control` (`no-store` unless told), Date and Connection.
    static func renderError(
        _ error: DepotError, extraHeaders: [(String, String)], request: HTTPRequestHead, date: String, keepAlive: Bool,
        cacheControl: String = "no-store", allocator: ByteBufferAllocator
    ) -> (HTTPResponseHead, [BodyPart]) {
        let buffer = allocator.buffer(string: error.jsonBody)
        var headers = HTTPHeaders()
        headers.add(name: "Date", value: date)
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: String(buffer.readableBytes))
        headers.add(name: "Cache-Control", value: cacheControl)
        for (name, value) in extraHeaders { headers.add(name: name, value: value) }
        addConnection(&headers, request: request, keepAlive: keepAlive)
        let head = HTTPResponseHead(version: request.version, status: .init(statusCode: error.status), headers: headers)
        return (head, request.method == .HEAD ? [] : [.bytes(buffer)])
    }

    /// RFC 9112 §9.3: HTTP/1.0 needs an explicit keep-alive; any version needs `close` when we close.
    static func addConnection(_ headers: inout HTTPHeaders, request: HTTPRequestHead, keepAlive: Bool) {
        if !keepAlive {
            headers.add(name: "Connection", value: "close")
        } else if request.version.major == 1 && request.version.minor == 0 {
            headers.add(name: "Connection", value: "keep-alive")
        }
    }
}

import DepotAPI
import DepotCore
import DepotHTTP
import NIOCore
import NIOHTTP1

/// What an answer's framing depends on in its request: the version it is answered in, and whether it is
/// a HEAD (same header fields, no body: RFC 9110 §9.3.2).
struct AnswerFraming {
    /// The request's HTTP version.
    var version: HTTPVersion
    /// Whether the request is a HEAD.
    var isHead: Bool

    /// The framing of a decoded head.
    init(_ head: HTTPRequestHead) {
        version = head.version
        isHead = head.method == .HEAD
    }

    /// The framing for an HTTP/1.1 request.
    init(isHead: Bool) {
        version = .http1_1
        self.isHead = isHead
    }
}

/// Turns a `BundleAnswer` into the bytes of an HTTP/1.1 response: the serialized head, then buffers and
/// file regions.
///
/// Every answer carries `Date` and `Content-Length` (never chunked); a HEAD answer has the same header
/// fields as the GET one and no body (RFC 9110 §9.3.2). An error answer names its request in `X-Request-Id` and
/// `error.requestId` (the client's valid id, or a fresh one), as routed errors do; any other answer echoes
/// `X-Request-Id` only when the client sent a valid one.
struct BundleResponseWriter {
    /// One piece of a response body.
    enum BodyPart {
        case bytes(ByteBuffer)
        case file(NIOFileHandle, offset: Int64, length: Int64)
    }

    /// The serialized response head, the body parts and the status of an answer, the head written straight into
    /// one buffer.
    ///
    /// `date` is the `Date` value of the second `second`; `requestId` the request's valid `X-Request-Id`.
    static func render(
        _ answer: BundleAnswer, request: AnswerFraming, date: String, second: Int64, keepAlive: Bool,
        requestId: String?, loopState: OriginLoopState, allocator: ByteBufferAllocator
    ) -> (ByteBuffer, [BodyPart], status: Int) {
        let files = loopState.bundleFiles
        switch answer {
        case .error(let error, let extraHeaders):
            let (head, body) = renderError(
                error, extraHeaders: extraHeaders, request: request, date: date, keepAlive: keepAlive,
                requestId: requestId ?? RequestId.generate(), allocator: allocator)
            return (serialized(head, allocator: allocator), body, error.status)
        case .complete(let bundle, _):
            let small = loopState.smallAnswer(
                digest: bundle.version.digest, path: bundle.path, size: bundle.version.size, allocator: allocator)
            if let small, keepAlive, !request.isHead, request.version == .http1_1, requestId == nil {
                // The commonest answer of all, head and body, in one buffer built once a second.
                return (
                    small.keepAliveAnswer(
                        headPrefix: bundle.completeHeadPrefix, date: date, second: second, allocator: allocator), [], 200
                )
            }
            // A HEAD needs no bytes; with a file source the file may not be on this disk, and is not needed.
            let fileNeeded = !files.hasSource || !request.isHead
            guard !fileNeeded || small != nil || (try? files.handle(digest: bundle.version.digest, path: bundle.path)) != nil
            else {
                return unavailable(
                    request: request, date: date, keepAlive: keepAlive, requestId: requestId, allocator: allocator)
            }
            // The head prepared for this bundle, plus Date and Connection.
            let estimate = bundle.completeHeadPrefix.count + 96 + (requestId?.utf8.count ?? 0)
            var buffer = allocator.buffer(capacity: estimate)
            ResponseHeadBytes.write(into: &buffer, estimate: estimate) { sink in
                if request.version == .http1_1 {
                    sink.add(bundle.completeHeadPrefix)
                } else {
                    sink.statusLine(version: request.version, status: .ok)
                    for (name, value) in bundle.completeHeaders { sink.field(name: name, value: value) }
                }
                sink.field("Date", date)
                if let requestId { sink.field("X-Request-Id", requestId) }
                addConnection(to: &sink, request: request, keepAlive: keepAlive)
                sink.add("\r\n")
            }
            if request.isHead { return (buffer, [], 200) }
            if let small { return (buffer, [.bytes(small.body)], 200) }
            guard let handle = try? files.handle(digest: bundle.version.digest, path: bundle.path) else {
                return unavailable(
                    request: request, date: date, keepAlive: keepAlive, requestId: requestId, allocator: allocator)
            }
            return (buffer, [.file(handle, offset: 0, length: bundle.version.size)], 200)
        case .range(let range, let bundle, _):
            guard let handle = try? files.handle(digest: bundle.version.digest, path: bundle.path) else {
                return unavailable(
                    request: request, date: date, keepAlive: keepAlive, requestId: requestId, allocator: allocator)
            }
            // The fields `.bytes` writes for a single-part 206, in its order, the fixed ones from prepared bytes.
            // At most: the status line and Date (70 bytes), Content-Range and Content-Length with 19 digits a number
            // (117), Connection (24), the empty line and the request id's field.
            let estimate = bundle.partialHeadSuffix.count + 256 + (requestId?.utf8.count ?? 0)
            var buffer = loopState.headBuffer(capacity: estimate, allocator: allocator)
            ResponseHeadBytes.write(into: &buffer, estimate: estimate) { sink in
                if request.version == .http1_1 {
                    // The status line of nearly every such answer, spelled once.
                    sink.add("HTTP/1.1 206 Partial Content\r\n")
                } else {
                    sink.statusLine(version: request.version, status: .partialContent)
                }
                sink.field("Date", date)
                sink.add("Content-Range: bytes ")
                sink.add(decimal: range.first)
                sink.add(byte: UInt8(ascii: "-"))
                sink.add(decimal: range.last)
                sink.add(byte: UInt8(ascii: "/"))
                sink.add(decimal: max(bundle.version.size, 0))
                sink.add("\r\nContent-Length: ")
                sink.add(decimal: range.length)
                sink.add("\r\n")
                sink.add(bundle.partialHeadSuffix)
                if let requestId { sink.field("X-Request-Id", requestId) }
                addConnection(to: &sink, request: request, keepAlive: keepAlive)
                sink.add("\r\n")
            }
            loopState.keepHeadBuffer(buffer)
            return (buffer, [.file(handle, offset: range.first, length: range.length)], 206)
        case .bytes(let plan, let bundle, _):
            // A 304, 412 or 416, or a HEAD, needs no bytes: with a file source the file may not be on this disk.
            var handle: NIOFileHandle?
            if !files.hasSource || (!request.isHead && Self.readsFile(plan.body)) {
                guard let opened = try? files.handle(digest: bundle.version.digest, path: bundle.path) else {
                    return unavailable(
                        request: request, date: date, keepAlive: keepAlive, requestId: requestId, allocator: allocator)
                }
                handle = opened
            }
            // An error body names its request, as every error answer does.
            var errorRequestId: String?
            var body: [BodyPart] = []
            var errorLength: String?
            switch plan.body {
            case .none:
                if plan.status == 412 || plan.status == 416 {
                    let error =
                        plan.status == 412
                        ? DepotError(.preconditionFailed, "a precondition of the request does not hold for this bundle")
                        : DepotError(.rangeNotSatisfiable, "no requested range lies inside the bundle")
                    let id = requestId ?? RequestId.generate()
                    errorRequestId = id
                    let errorBody = allocator.buffer(string: error.jsonBody(requestId: id))
                    errorLength = String(errorBody.readableBytes)
                    body.append(.bytes(errorBody))
                }
            case .file(let offset, let length):
                if let handle { body.append(.file(handle, offset: offset, length: length)) }
            case .segments(let segments):
                for segment in segments {
                    switch segment {
                    case .literal(let bytes): body.append(.bytes(allocator.buffer(bytes: bytes)))
                    case .file(let offset, let length):
                        if let handle { body.append(.file(handle, offset: offset, length: length)) }
                    }
                }
            }
            // Date, the plan's fields, the origin's fields; an error body's fields; Connection.
            var buffer = allocator.buffer(capacity: 512)
            ResponseHeadBytes.write(into: &buffer) { sink in
                sink.statusLine(version: request.version, status: HTTPResponseStatus(statusCode: plan.status))
                sink.field("Date", date)
                for field in plan.headers { sink.field(name: field.name, value: field.value) }
                if plan.status == 200 || plan.status == 206 || plan.status == 304 {
                    for field in bundle.originFields { sink.field(name: field.name, value: field.value) }
                }
                if let errorLength {
                    sink.field("Content-Type", "application/json")
                    sink.field("Content-Length", errorLength)
                }
                if let id = errorRequestId ?? requestId { sink.field("X-Request-Id", id) }
                addConnection(to: &sink, request: request, keepAlive: keepAlive)
                sink.add("\r\n")
            }
            return (buffer, request.isHead ? [] : body, plan.status)
        }
    }

    /// Whether a planned body holds bytes of the bundle's file.
    private static func readsFile(_ body: ResponseBody) -> Bool {
        switch body {
        case .none: false
        case .file: true
        case .segments(let segments): segments.contains { if case .file = $0 { true } else { false } }
        }
    }

    /// A response head's bytes.
    private static func serialized(_ head: HTTPResponseHead, allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: 512)
        ResponseHeadBytes.write(head, into: &buffer)
        return buffer
    }

    /// RFC 9112 §9.3, as ``addConnection(_:request:keepAlive:)`` says it, written as bytes.
    private static func addConnection(to sink: inout ResponseHeadBytes.Sink, request: AnswerFraming, keepAlive: Bool) {
        if !keepAlive {
            sink.add("Connection: close\r\n")
        } else if request.version.major == 1 && request.version.minor == 0 {
            sink.add("Connection: keep-alive\r\n")
        }
    }

    /// 503 when a stored bundle cannot be opened (a disk problem): the client may retry.
    private static func unavailable(
        request: AnswerFraming, date: String, keepAlive: Bool, requestId: String?, allocator: ByteBufferAllocator
    ) -> (ByteBuffer, [BodyPart], status: Int) {
        let failure = DepotError(.bundleUnavailable, "the bundle cannot be read right now")
        let (head, body) = renderError(
            failure, extraHeaders: [], request: request, date: date, keepAlive: keepAlive,
            requestId: requestId ?? RequestId.generate(), allocator: allocator)
        return (serialized(head, allocator: allocator), body, failure.status)
    }

    /// An error answer: Depot's JSON body naming the request (`error.requestId`), `Cache-Control` (`no-store` unless
    /// told), Date, `X-Request-Id` and Connection.
    static func renderError(
        _ error: DepotError, extraHeaders: [(String, String)], request: AnswerFraming, date: String, keepAlive: Bool,
        cacheControl: String = "no-store", requestId: String, allocator: ByteBufferAllocator
    ) -> (HTTPResponseHead, [BodyPart]) {
        let answer = ErrorAnswer(error, isHead: request.isHead, cacheControl: cacheControl, requestId: requestId)
        var headers = HTTPHeaders()
        headers.add(name: "Date", value: date)
        for field in answer.fields { headers.add(name: field.name, value: field.value) }
        for (name, value) in extraHeaders { headers.add(name: name, value: value) }
        headers.add(name: "X-Request-Id", value: requestId)
        addConnection(&headers, request: request, keepAlive: keepAlive)
        let head = HTTPResponseHead(version: request.version, status: .init(statusCode: error.status), headers: headers)
        return (head, request.isHead ? [] : [.bytes(allocator.buffer(string: answer.body))])
    }

    /// RFC 9112 §9.3: HTTP/1.0 needs an explicit keep-alive; any version needs `close` when we close.
    static func addConnection(_ headers: inout HTTPHeaders, request: AnswerFraming, keepAlive: Bool) {
        if !keepAlive {
            headers.add(name: "Connection", value: "close")
        } else if request.version.major == 1 && request.version.minor == 0 {
            headers.add(name: "Connection", value: "keep-alive")
        }
    }
}

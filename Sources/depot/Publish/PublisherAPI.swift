import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// Why `depot publish` stopped: one sentence for people.
struct PublishError: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String

    init(_ description: String) { self.description = description }
}

/// The publisher API of one Depot server, over AsyncHTTPClient, with a publisher key: tus uploads, versions
/// and publishing. Every call has a deadline; error answers are turned into their message.
struct PublisherAPI: Sendable {
    /// An answer: status, headers and body.
    struct Answer {
        var status: Int
        var headers: HTTPHeaders
        var body: ByteBuffer

        var json: Any? { try? JSONSerialization.jsonObject(with: Data(buffer: body)) }

        /// The server's error message, or the status when the body has none.
        var errorText: String {
            if let object = json as? [String: Any], let error = object["error"] as? [String: Any],
                let message = error["message"] as? String
            {
                return "\(message) (\(status) \(error["code"] as? String ?? ""))"
            }
            return "HTTP \(status)"
        }
    }

    let client: HTTPClient
    /// `http://host:port`, without a trailing slash.
    let server: String
    let key: String

    /// Sends one request to a path or an upload address on the server's origin (`url(for:)`); a transport
    /// failure is a `PublishError` naming the server.
    func send(
        _ method: HTTPMethod, _ path: String, headers: [(String, String)] = [], body: HTTPClientRequest.Body? = nil,
        timeout: TimeAmount = .seconds(60)
    ) async throws(PublishError) -> Answer {
        var request = HTTPClientRequest(url: try url(for: path))
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(key)")
        request.headers.add(name: "Tus-Resumable", value: "1.0.0")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = body }
        do {
            let response = try await client.execute(request, timeout: timeout)
            let bytes = try await response.body.collect(upTo: 16 << 20)
            return Answer(status: Int(response.status.code), headers: response.headers, body: bytes)
        } catch {
            throw PublishError("cannot reach \(server): \(error)")
        }
    }

    /// tus creation: a new upload of `length` bytes; returns its `Location`.
    func createUpload(length: Int64, filename: String) async throws(PublishError) -> String {
        let answer = try await send(
            .POST, "/v1/publisher/uploads",
            headers: [
                ("Upload-Length", String(length)),
                ("Upload-Metadata", "filename " + Data(filename.utf8).base64EncodedString()),
            ])
        guard answer.status == 201, let location = answer.headers.first(name: "Location") else {
            throw PublishError("the server refused the upload: \(answer.errorText)")
        }
        // Checked before the address is remembered for a rerun or given the key.
        _ = try url(for: location)
        return location
    }

    /// The offset of an upload of `length` bytes (tus HEAD), or nil when the server no longer has it (404, 410).
    /// An offset outside `0...length` is refused: it is no place in this file.
    func offset(of location: String, length: Int64) async throws(PublishError) -> Int64? {
        let answer = try await send(.HEAD, location)
        if answer.status == 404 || answer.status == 410 { return nil }
        guard answer.status == 200, let offset = Self.uploadOffset(answer, within: 0...length) else {
            throw PublishError("the server did not report an offset within the upload's \(length) bytes: \(answer.errorText)")
        }
        return offset
    }

    /// The `Upload-Offset` of `answer` when it is 1 to 18 digits (tus 1.0.0: a non-negative integer) within `range`.
    static func uploadOffset(_ answer: Answer, within range: ClosedRange<Int64>) -> Int64? {
        guard let text = answer.headers.first(name: "Upload-Offset"), (1...18).contains(text.utf8.count),
            text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let offset = Int64(text),
            range.contains(offset)
        else { return nil }
        return offset
    }

    /// Sends the file's bytes from `offset` to its end in one PATCH; returns the new offset. `onSent` hears
    /// of each piece handed to the connection.
    func patch(
        _ location: String, file: String, from offset: Int64, length: Int64, onSent: @escaping @Sendable (Int64) -> Void
    ) async throws(PublishError) -> Int64 {
        let chunks = FileChunks(path: file, start: offset, end: length, onRead: onSent)
        let answer = try await send(
            .PATCH, location,
            headers: [("Content-Type", "application/offset+octet-stream"), ("Upload-Offset", String(offset))],
            body: .stream(chunks, length: .known(length - offset)), timeout: .hours(24))
        guard answer.status == 204 else {
            throw PublishError("the server refused the upload's bytes: \(answer.errorText)")
        }
        // The new offset lies past the old one (a PATCH that took nothing is no progress) and within the file.
        guard offset < length, let next = Self.uploadOffset(answer, within: offset + 1...length) else {
            throw PublishError("the server reported no offset past \(offset) within the upload's \(length) bytes")
        }
        return next
    }

    /// A JSON request to the publisher API; returns the decoded object of a 2xx answer.
    func json(
        _ method: HTTPMethod, _ path: String, _ body: [String: Any]? = nil, doing what: String
    )
        async throws(PublishError) -> [String: Any]
    {
        var headers: [(String, String)] = []
        var requestBody: HTTPClientRequest.Body?
        if let body, let data = try? JSONSerialization.data(withJSONObject: body) {
            headers.append(("Content-Type", "application/json"))
            requestBody = .bytes(ByteBuffer(data: data))
        }
        let answer = try await send(method, path, headers: headers, body: requestBody)
        guard (200..<300).contains(answer.status), let object = answer.json as? [String: Any] else {
            throw PublishError("\(what) failed: \(answer.errorText)")
        }
        return object
    }
}

/// A file's bytes from `start` to `end` as ByteBuffers of up to 256 KiB, read as the connection takes them.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let path: String
    let start: Int64
    let end: Int64
    let onRead: @Sendable (Int64) -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        var handle: FileHandle?
        var position: Int64
        let end: Int64
        let onRead: @Sendable (Int64) -> Void

        mutating func next() async throws -> ByteBuffer? {
            guard position < end, let handle else {
                try? handle?.close()
                return nil
            }
            guard let data = try handle.read(upToCount: Int(Swift.min(end - position, 256 << 10))), !data.isEmpty else {
                throw PublishError("the archive ended before its length")
            }
            position += Int64(data.count)
            onRead(position)
            return ByteBuffer(data: data)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        let handle = FileHandle(forReadingAtPath: path)
        try? handle?.seek(toOffset: UInt64(start))
        return AsyncIterator(handle: handle, position: start, end: end, onRead: onRead)
    }
}

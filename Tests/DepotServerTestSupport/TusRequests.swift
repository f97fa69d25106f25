/// tus requests as a publisher's client sends them, on raw connections.
enum TusRequests {
    /// The head of a PATCH of `length` bytes at `offset`, with the publisher key `key`.
    static func patchHead(_ path: String, offset: Int, length: Int, key: String) -> String {
        "PATCH \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(key)\r\nTus-Resumable: 1.0.0\r\n"
            + "Content-Type: application/offset+octet-stream\r\nUpload-Offset: \(offset)\r\nContent-Length: \(length)\r\n\r\n"
    }

    /// PATCHes `bytes` at `offset` to the server on `port`; returns its answer.
    static func patch(_ path: String, offset: Int, _ bytes: [UInt8], port: Int, key: String) async throws -> RawHTTPClient.Response {
        let client = try RawHTTPClient(port: port)
        try await client.send(patchHead(path, offset: offset, length: bytes.count, key: key))
        do {
            try await client.send(bytes: bytes)
        } catch {
            // A refusal (a 423 while another instance writes the upload) may come before the body is read, and the
            // connection close after it: the answer, when it arrived before the close, is what the server said.
            if let early = try? await client.readResponse() { return early }
            throw error
        }
        return try await client.readResponse()
    }
}

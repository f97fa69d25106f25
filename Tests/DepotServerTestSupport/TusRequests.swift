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
        try await client.send(bytes: bytes)
        return try await client.readResponse()
    }
}

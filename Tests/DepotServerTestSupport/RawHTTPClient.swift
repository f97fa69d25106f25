import DepotTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking HTTP/1.1 client over a plain socket, for requests no library would send: repeated or
/// malformed header fields, pipelined requests, exact byte-level checks of the answer.
final class RawHTTPClient: @unchecked Sendable {
    /// One parsed response.
    struct Response {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        /// Every value of a field, by case-insensitive name.
        func values(_ name: String) -> [String] {
            headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        }

        /// The single value of a field, or nil.
        func value(_ name: String) -> String? { values(name).first }

        var text: String { String(decoding: body, as: UTF8.self) }
    }

    struct ClientError: Error, CustomStringConvertible {
        var description: String
    }

    private let socket: Int32
    private var buffer: [UInt8] = []
    private var receivePause: Duration?

    /// Connects to 127.0.0.1:`port`; a small `receiveBuffer` makes the server wait on a slow reader.
    init(port: Int, receiveBuffer: Int32? = nil, source: String? = nil) throws {
        // The descriptor is stored only once connected: a failed init closes it here and never in `deinit`,
        // so it is closed exactly once (a second close could hit a descriptor another test just opened).
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientError(description: "socket failed") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        // Generous: an answer on a loaded machine can take seconds; a test waiting for a close that never
        // comes fails after this long.
        var timeout = timeval(tv_sec: 180, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            // A loopback address other than 127.0.0.1, to connect as another client would.
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                close(fd)
                throw ClientError(description: "bind to \(source) failed")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            throw ClientError(description: "connect failed")
        }
        socket = fd
    }

    deinit { close(socket) }

    /// Sends raw bytes.
    func sendNow(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw ClientError(description: "send failed") }
            sent += n
        }
    }

    /// Sends raw bytes (a body that is not text).
    func sendNow(bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw ClientError(description: "send failed") }
            sent += n
        }
    }

    /// Sends raw bytes, off the concurrency pool.
    func send(bytes: [UInt8]) async throws {
        try await OffPool.run { try self.sendNow(bytes: bytes) }
    }

    /// Ends the connection at once, as a client whose network dropped would (both directions shut).
    func cut() {
        shutdown(socket, Int32(SHUT_RDWR))
    }

    /// Reads one response; `head` says the request was HEAD (no body follows the header).
    func readResponseNow(head: Bool = false) throws -> Response {
        let headerEnd = try readUntilHeaderEnd()
        let headerText = String(decoding: buffer[..<headerEnd], as: UTF8.self)
        buffer.removeFirst(headerEnd + 4)
        var lines = headerText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw ClientError(description: "bad status line")
        }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = Response(status: status, headers: headers, body: [])
        if head || status == 304 || status == 204 { return response }
        guard let lengthText = response.value("Content-Length"), let length = Int(lengthText) else {
            throw ClientError(description: "response without Content-Length (status \(status))")
        }
        while buffer.count < length { try fill() }
        response.body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return response
    }

    /// Sends raw bytes, off the concurrency pool (the server's router tasks need it).
    func send(_ text: String) async throws {
        try await OffPool.run { try self.sendNow(text) }
    }

    /// Reads one response slowly: `pause` between each receive (a client on a poor network).
    func readResponseSlowly(pause: Duration) async throws -> Response {
        try await OffPool.run {
            self.receivePause = pause
            defer { self.receivePause = nil }
            return try self.readResponseNow()
        }
    }

    /// Reads one response, off the concurrency pool.
    func readResponse(head: Bool = false) async throws -> Response {
        try await OffPool.run { try self.readResponseNow(head: head) }
    }

    /// Sends one request and reads its response.
    func request(_ text: String, head: Bool = false) async throws -> Response {
        try await OffPool.run {
            try self.sendNow(text)
            return try self.readResponseNow(head: head)
        }
    }

    /// Waits until the first bytes of an answer have arrived (they stay buffered for the next read).
    func awaitAnswerStart() async throws {
        try await OffPool.run { if self.buffer.isEmpty { try self.fill() } }
    }

    /// Whether bytes from the server wait to be read (or it closed the connection), without waiting.
    func hasBytesWaiting() -> Bool {
        if !buffer.isEmpty { return true }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) > 0
    }

    /// Whether the server has closed the connection (reads until EOF or timeout).
    func isClosedByPeer() async -> Bool {
        await OffPool.run { self.isClosedByPeerNow() }
    }

    private func isClosedByPeerNow() -> Bool {
        do {
            while true { try fill() }
        } catch let error as ClientError {
            return error.description == "closed"
        } catch {
            return false
        }
    }

    private func readUntilHeaderEnd() throws -> Int {
        while true {
            if buffer.count >= 4 {
                for index in 0...(buffer.count - 4)
                where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
                    return index
                }
            }
            try fill()
        }
    }

    private func fill() throws {
        if let receivePause {
            let nanoseconds = receivePause.components.attoseconds / 1_000_000_000 + receivePause.components.seconds * 1_000_000_000
            usleep(useconds_t(nanoseconds / 1000))
        }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if n == 0 { throw ClientError(description: "closed") }
        guard n > 0 else { throw ClientError(description: "receive failed or timed out") }
        buffer.append(contentsOf: chunk[..<n])
    }
}

extension RawHTTPClient {
    /// One GET request's text with the given extra header lines.
    /// The port of this end of the connection.
    var localPort: Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func get(_ path: String, _ headers: [String] = [], method: String = "GET") -> String {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for header in headers { text += header + "\r\n" }
        return text + "\r\n"
    }
}

extension RawHTTPClient.Response: @unchecked Sendable {}

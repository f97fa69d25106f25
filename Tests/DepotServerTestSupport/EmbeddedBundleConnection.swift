import DepotBundles
import DepotTestSupport
import DepotSettings
import DepotCore
import DepotHTTP
@testable import DepotOrigin
import DepotTrust
import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1

@testable import DepotServer
@testable import DepotServices

/// Answers the requests the bundle handler hands on, in an `EmbeddedChannel` where Hummingbird's async channel
/// cannot run: 200 with a body naming the request (`routed GET /x`), at once or, while `holding`, when released.
/// A HEAD gets the same answer, body and all, as a router's error answer would have: the pipeline must drop it.
/// Under `/streamed` answers carry no Content-Length (a streamed body).
final class StandInRouter: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    var holding = false
    /// Whether the graceful-shutdown event reached the router.
    private(set) var sawShutdown = false
    /// How many read-complete events reached the router.
    private(set) var readCompletes = 0
    private var current: HTTPRequestHead?
    private var due: [HTTPRequestHead] = []
    private var context: ChannelHandlerContext?

    /// Requests received whose answers are held.
    var heldCount: Int { due.count }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): current = head
        case .body: break
        case .end:
            guard let head = current else { return }
            current = nil
            if holding { due.append(head) } else { answer(head, context: context) }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        readCompletes += 1
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent { sawShutdown = true }
        context.fireUserInboundEventTriggered(event)
    }

    /// Answers every held request, oldest first.
    func release() {
        guard let context else { return }
        let answers = due
        due = []
        for head in answers { answer(head, context: context) }
    }

    private func answer(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let body = context.channel.allocator.buffer(string: "routed \(head.method) \(head.uri)")
        var fields = HTTPHeaders()
        // Under /streamed the answer has no length, so NIO's encoder announces a chunked body.
        if !head.uri.hasPrefix("/streamed") { fields.add(name: "Content-Length", value: String(body.readableBytes)) }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

/// Holds the bytes written to the socket while `holding`, as a socket that has not sent them yet would: their
/// writes complete only once released.
final class HeldWrites: ChannelOutboundHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    var holding = false
    private var held: [(NIOAny, EventLoopPromise<Void>?)] = []
    /// How many reads were asked of the socket.
    private(set) var reads = 0

    func read(context: ChannelHandlerContext) {
        reads += 1
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if holding { held.append((data, promise)) } else { context.write(data, promise: promise) }
    }

    func flush(context: ChannelHandlerContext) {
        if !holding { context.flush() }
    }

    /// Sends what was held and stops holding.
    func release(context: ChannelHandlerContext) {
        holding = false
        let writes = held
        held = []
        for (data, promise) in writes { context.write(data, promise: promise) }
        context.flush()
    }
}

/// The bundle-serving pipeline on an `EmbeddedChannel`: NIO's HTTP/1 server codec, the bundle handler installed
/// as the server installs it, and a stand-in router; one real bundle file, real grants; time is the embedded
/// loop's (idle 60 s, request 30 s, shutdown grace 10 s).
final class EmbeddedBundleConnection {
    let channel = EmbeddedChannel()
    let router = StandInRouter()
    let socket = HeldWrites()
    let digest: String
    let bundleBytes: [UInt8]
    /// The bundle handler, held weakly: a closed connection must free it.
    private(set) weak var handler: BundleChannelHandler?
    private let authority: GrantAuthority
    private let directory: URL
    /// The open bundle files, kept beyond the handler as the server's per-loop caches are (file regions written
    /// to the socket are read after the connection closed).
    private let files = OriginLoopState()

    /// A connected pipeline; `ready` false leaves the request decoder's swap unfinished until the loop runs.
    init(testName: String = #function, bundleSize: Int = 1000, bundleBytes given: [UInt8]? = nil, ready: Bool = true) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("depot-embedded-\(testName.filter(\.isLetter))-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        bundleBytes = given ?? (0..<bundleSize).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let path = directory.appendingPathComponent("bundle.zip").path
        try Data(bundleBytes).write(to: URL(fileURLWithPath: path))
        digest = try FileSHA256.hex(path: path)
        authority = try GrantAuthority(keys: [GrantKey(id: "k1", secret: Array(repeating: 7, count: 32))], activeKeyId: "k1")
        let version = ContentVersion(
            productId: "com.example.embedded", contentId: "com.example.embedded", version: "1", publishedAt: 1_700_000_000,
            digest: .parsed(digest), size: Int64(bundleBytes.count), unpackedSize: Int64(bundleBytes.count))
        let access = BundleAccess(
            grants: authority, revocations: RevocationList(), edgeSecrets: EdgeSecrets(settings: .defaults))
        let handler = BundleChannelHandler(
            responder: BundleResponder(
                index: BundleIndex([ServedBundle(version: version, path: path)]), access: access, rangeLimits: RangeLimits()),
            checker: GrantCheckResponder(access: access, cacheSeconds: 0), recorder: nil, loopState: files,
            idleTimeout: .seconds(60), requestTimeout: .seconds(30), shutdownGrace: .seconds(10),
            clock: { Int64(Date().timeIntervalSince1970) })
        self.handler = handler
        let pipeline = channel.pipeline.syncOperations
        try pipeline.configureHTTPServerPipeline(
            withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false)
        try pipeline.addHandler(router)
        try BundleOrigin.install(handler, before: router, in: pipeline)
        try pipeline.addHandler(socket, position: .first)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        // The request decoder's swap ends on the loop's next turn.
        if ready { channel.embeddedEventLoop.run() }
    }

    deinit {
        _ = try? channel.finish()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A grant for the bundle.
    var grant: String { authority.issue(digest: BundleDigest(hex: digest)!, expiresAt: Int64(Date().timeIntervalSince1970) + 600) }

    /// Sends bytes as the client would, in one read.
    func send(_ text: String) throws {
        try channel.writeInbound(channel.allocator.buffer(string: text))
    }

    /// Runs what the event loop has queued, releasing held routed answers, until nothing moves.
    func settle() {
        for _ in 0..<16 {
            router.release()
            channel.embeddedEventLoop.run()
        }
    }

    /// Sends the held socket bytes.
    func releaseSocket() throws {
        socket.release(context: try channel.pipeline.syncOperations.context(handler: socket))
    }

    /// Moves the loop's clock on, firing the timers that fall due.
    func advance(by amount: TimeAmount) {
        channel.embeddedEventLoop.advanceTime(by: amount)
    }

    /// Every byte written to the socket so far (file regions read from their files).
    func written() throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let data = try channel.readOutbound(as: IOData.self) {
            switch data {
            case .byteBuffer(let buffer):
                bytes += buffer.readableBytesView
            case .fileRegion(let region):
                let count = region.endIndex - region.readerIndex
                let read = try region.fileHandle.withUnsafeFileDescriptor { descriptor in
                    [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                        initialized = max(0, pread(descriptor, buffer.baseAddress, count, off_t(region.readerIndex)))
                    }
                }
                bytes += read
            }
        }
        return bytes
    }
}

/// Splits a byte stream of HTTP/1.1 answers; `heads[i]` says whether answer `i` answers a HEAD (no body).
func splitResponses(_ bytes: [UInt8], heads: [Bool]) throws -> [RawHTTPClient.Response] {
    var rest = bytes[...]
    var responses: [RawHTTPClient.Response] = []
    for isHead in heads {
        guard let end = rest.indices.first(where: { rest[$0...].starts(with: [13, 10, 13, 10]) }) else {
            throw RawHTTPClient.ClientError(description: "answer \(responses.count + 1) of \(heads.count) is missing")
        }
        let lines = String(decoding: rest[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        rest = rest[(end + 4)...]
        let statusLine = lines[0].split(separator: " ")
        guard lines[0].hasPrefix("HTTP/1."), statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw RawHTTPClient.ClientError(description: "answer \(responses.count + 1) starts with \"\(lines[0])\"")
        }
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = RawHTTPClient.Response(status: status, headers: headers, body: [])
        if !isHead && status != 204 && status != 304 {
            let length = Int(response.value("Content-Length") ?? "") ?? 0
            guard rest.count >= length else { throw RawHTTPClient.ClientError(description: "answer \(responses.count + 1) is cut") }
            response.body = Array(rest.prefix(length))
            rest = rest.dropFirst(length)
        }
        responses.append(response)
    }
    guard rest.isEmpty else {
        throw RawHTTPClient.ClientError(description: "\(rest.count) bytes after the last answer: \(String(decoding: rest, as: UTF8.self))")
    }
    return responses
}

@testable import DepotServerTestSupport
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import DepotServer

/// A request's text.
private func request(_ method: String, _ target: String, _ fields: [String] = []) -> String {
    RawHTTPClient.get(target, fields, method: method)
}

@Suite("The bundle-serving pipeline on an EmbeddedChannel: NIO's codec, the bundle handler, a stand-in router")
struct BundlePipelineTests {
    @Test func pipelinedBundleAndRoutedRequestsKeepTheirOrder() throws {
        let connection = try EmbeddedBundleConnection()
        let grant = "Authorization: Bearer \(connection.grant)"
        let bundle = "/v1/bundles/\(connection.digest)"
        connection.router.holding = true
        try connection.send(
            request("GET", "/v1/products") + request("GET", bundle, [grant]) + request("HEAD", "/healthz")
                + request("GET", bundle, [grant, "Range: bytes=0-3"])
                + request("GET", "/v1/grants/check", [grant, "X-Original-URI: \(bundle)"])
                + request("HEAD", bundle, [grant]) + request("GET", "/healthz"))
        // The first answer is the router's, which it holds: nothing may overtake it.
        #expect(try connection.written().isEmpty)
        connection.settle()
        let answers = try splitResponses(
            try connection.written(), heads: [false, false, true, false, false, true, false])
        #expect(answers.map(\.status) == [200, 200, 200, 206, 204, 200, 200])
        #expect(answers[0].text == "routed GET /v1/products")
        #expect(answers[1].body == connection.bundleBytes)
        #expect(answers[2].value("Content-Length") == String("routed HEAD /healthz".utf8.count))
        #expect(answers[3].body == Array(connection.bundleBytes[0..<4]))
        #expect(answers[5].value("Content-Length") == String(connection.bundleBytes.count))
        #expect(answers[6].text == "routed GET /healthz")
        #expect(connection.channel.isActive)
    }

    /// A read whose requests the recognizer answered itself stays at the front of the pipeline: no read-complete
    /// reaches Hummingbird's handlers and the next read is asked from the front; a read that hands a request on
    /// ends with a read-complete, as before.
    @Test func aReadAnsweredInFullStaysAtTheFront() throws {
        let connection = try EmbeddedBundleConnection()
        let bundle = "GET /v1/bundles/\(connection.digest) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(connection.grant)\r\n\r\n"
        let readsBefore = connection.socket.reads
        try connection.send(bundle + bundle)
        connection.settle()
        #expect(connection.router.readCompletes == 0)
        #expect(connection.socket.reads == readsBefore + 1)
        try connection.send(bundle + "GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
        connection.settle()
        #expect(connection.router.readCompletes >= 1)
        let responses = try splitResponses(try connection.written(), heads: [false, false, false, false])
        #expect(responses.map(\.status) == [200, 200, 200, 200])
        #expect(responses.last?.text == "routed GET /x")
    }

    @Test func routedGetAfterBundleHeadKeepsItsBody() throws {
        let connection = try EmbeddedBundleConnection()
        try connection.send(request("HEAD", "/v1/bundles/\(connection.digest)", ["Authorization: Bearer \(connection.grant)"]))
        try connection.send(request("GET", "/healthz"))
        connection.settle()
        let answers = try splitResponses(try connection.written(), heads: [true, false])
        #expect(answers[0].status == 200)
        #expect(answers[1].status == 200 && answers[1].text == "routed GET /healthz")
    }

    @Test func bytesArrivingWhileTheDecoderIsSwappedWaitForTheNewOne() throws {
        let connection = try EmbeddedBundleConnection(ready: false)
        try connection.send(
            request("GET", "/healthz") + request("GET", "/v1/bundles/\(connection.digest)", ["Authorization: Bearer \(connection.grant)"]))
        #expect(try connection.written().isEmpty)
        connection.settle()
        let answers = try splitResponses(try connection.written(), heads: [false, false])
        #expect(answers[0].text == "routed GET /healthz")
        #expect(answers[1].status == 200 && answers[1].body == connection.bundleBytes)
    }

    @Test func routedHeadOfAStreamedAnswerEndsWithoutAChunkTerminator() throws {
        let connection = try EmbeddedBundleConnection()
        try connection.send(request("HEAD", "/streamed") + request("GET", "/healthz"))
        connection.settle()
        let answers = try splitResponses(try connection.written(), heads: [true, false])
        #expect(answers[0].value("Transfer-Encoding") == "chunked")
        #expect(answers[1].text == "routed GET /healthz")
    }

    @Test func requestsArrivingByteByByteAreAnswered() throws {
        let connection = try EmbeddedBundleConnection()
        let text =
            request("GET", "/v1/bundles/\(connection.digest)", ["Authorization: Bearer \(connection.grant)"])
            + request("GET", "/healthz") + request("GET", "/v1/bundles/\(connection.digest)", ["Range: bytes=2-5"])
        for byte in text.utf8 {
            try connection.channel.writeInbound(connection.channel.allocator.buffer(bytes: [byte]))
        }
        connection.settle()
        let answers = try splitResponses(try connection.written(), heads: [false, false, false])
        #expect(answers[0].status == 200 && answers[0].body == connection.bundleBytes)
        #expect(answers[1].text == "routed GET /healthz")
        #expect(answers[2].status == 401)
    }

    @Test func requestTrickledPastTheRequestTimeoutIsAnswered408() throws {
        let connection = try EmbeddedBundleConnection()
        for byte in "GET /v1/bundles/\(connection.digest) HTTP/1.1\r\n".utf8 {
            try connection.channel.writeInbound(connection.channel.allocator.buffer(bytes: [byte]))
            connection.advance(by: .seconds(1))
            if !connection.channel.isActive { break }
        }
        let answers = try splitResponses(try connection.written(), heads: [false])
        #expect(answers[0].status == 408)
        #expect(!connection.channel.isActive)
    }

    @Test func shutdownDuringATransferLetsItEndThenCloses() throws {
        let connection = try EmbeddedBundleConnection(bundleSize: 200_000)
        connection.socket.holding = true
        try connection.send(request("GET", "/v1/bundles/\(connection.digest)", ["Authorization: Bearer \(connection.grant)"]))
        connection.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        connection.advance(by: .seconds(5))
        // The download is still going: the connection stays, and the router is not told to close it.
        #expect(connection.channel.isActive)
        #expect(!connection.router.sawShutdown)
        try connection.releaseSocket()
        connection.settle()
        let answers = try splitResponses(try connection.written(), heads: [false])
        #expect(answers[0].status == 200 && answers[0].body == connection.bundleBytes)
        #expect(!connection.channel.isActive)
    }

    @Test func shutdownCutsATransferLongerThanTheGrace() throws {
        let connection = try EmbeddedBundleConnection(bundleSize: 200_000)
        connection.socket.holding = true
        try connection.send(request("GET", "/v1/bundles/\(connection.digest)", ["Authorization: Bearer \(connection.grant)"]))
        connection.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        connection.advance(by: .seconds(9))
        #expect(connection.channel.isActive)
        connection.advance(by: .seconds(1))
        #expect(!connection.channel.isActive)
    }

    @Test func shutdownOfAnIdleConnectionGoesToTheRouter() throws {
        let connection = try EmbeddedBundleConnection()
        connection.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(connection.router.sawShutdown)
    }

    @Test func idleConnectionClosesAfterTheIdleTimeoutFromItsLastAnswer() throws {
        let connection = try EmbeddedBundleConnection()
        connection.advance(by: .seconds(30))
        try connection.send(request("GET", "/v1/bundles/\(connection.digest)", ["Authorization: Bearer \(connection.grant)"]))
        connection.settle()
        #expect(try splitResponses(try connection.written(), heads: [false])[0].status == 200)
        connection.advance(by: .seconds(59))
        #expect(connection.channel.isActive)
        connection.advance(by: .seconds(1))
        #expect(!connection.channel.isActive)
    }

    @Test func closedConnectionFreesItsHandler() throws {
        let connection = try EmbeddedBundleConnection()
        try connection.send(request("GET", "/v1/bundles/\(connection.digest)", ["Authorization: Bearer \(connection.grant)"]))
        connection.settle()
        #expect(connection.handler != nil)
        try connection.channel.close().wait()
        connection.settle()
        #expect(connection.handler == nil)
    }

    @Test func unreadableRequestIsAnswered400AndClosed() throws {
        let connection = try EmbeddedBundleConnection()
        _ = try? connection.send("GET /v1/bundles/x HTTP/1.1\r\nBad Header\r\n\r\n")
        let answers = try splitResponses(try connection.written(), heads: [false])
        #expect(answers[0].status == 400)
        #expect(answers[0].text.contains("\"code\""))
        #expect(!connection.channel.isActive)
    }
}

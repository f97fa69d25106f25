import DepotConsole
import DepotSettings
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DepotServer

/// `ConsoleRoutes` on a router of their own, without a socket or an application: the page and its files with
/// their type, length and security fields, HEAD without the body, revalidation by ETag, the JSON 404 of an unknown
/// file, and nothing at all when the console is off.
@Suite("Console routes without a socket")
struct ConsoleRouteRouterTests {
    /// Runs `body` with a router holding the console routes under `settings`.
    static func withConsole(
        _ settings: ConsoleSettings = .defaults, _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let router = Router(context: DepotRequestContext.self)
        router.middlewares.add(ErrorBodyMiddleware())
        ConsoleRoutes(settings: settings).register(on: router)
        try await Application(router: router).test(.router) { client in try await body(client) }
    }

    /// Checks the security fields every console answer carries.
    static func expectSecure(_ response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            response.headers[.contentSecurityPolicy] == ConsoleHeaders.contentSecurityPolicy, sourceLocation: sourceLocation)
        #expect(response.headers[.xFrameOptions] == "DENY", sourceLocation: sourceLocation)
        #expect(response.headers[.referrerPolicy] == "no-referrer", sourceLocation: sourceLocation)
    }

    @Test func everyFileIsServedWithItsTypeLengthAndTag() async throws {
        try await Self.withConsole { client in
            for (name, asset) in ConsoleAssets.byName {
                let path = name == "index.html" ? "/console" : "/console/\(name)"
                let answer = try await client.execute(uri: path, method: .get)
                #expect(answer.status == .ok, "\(path)")
                #expect(Array(answer.body.readableBytesView) == asset.bytes, "\(path)")
                #expect(answer.headers[.contentType] == asset.contentType)
                #expect(answer.headers[.contentLength] == String(asset.bytes.count))
                #expect(answer.headers[.eTag] == asset.etag)
                #expect(answer.headers[.cacheControl] == ConsoleHeaders.cacheControl)
                Self.expectSecure(answer)
            }
        }
    }

    @Test func headAndRevalidationAnswerWithoutTheBody() async throws {
        try await Self.withConsole { client in
            let asset = try #require(ConsoleAssets.byName["index.html"])
            let head = try await client.execute(uri: "/console", method: .head)
            #expect(head.status == .ok)
            #expect(head.body.readableBytes == 0)
            #expect(head.headers[.contentLength] == String(asset.bytes.count))
            for tag in [asset.etag, "W/" + asset.etag, "\"other\", \(asset.etag)", "*"] {
                let revalidated = try await client.execute(uri: "/console", method: .get, headers: [.ifNoneMatch: tag])
                #expect(revalidated.status == .notModified, "\(tag)")
                #expect(revalidated.body.readableBytes == 0)
                #expect(revalidated.headers[.eTag] == asset.etag)
                Self.expectSecure(revalidated)
            }
            let changed = try await client.execute(uri: "/console", method: .get, headers: [.ifNoneMatch: "\"other\""])
            #expect(changed.status == .ok)
        }
    }

    @Test func anUnknownFileIsAJSON404WithTheSecurityFields() async throws {
        try await Self.withConsole { client in
            for path in ["/console/nothing.js", "/console/index.htm", "/console/..%2Fconsole.css"] {
                let answer = try await client.execute(uri: path, method: .get)
                #expect(answer.status == .notFound, "\(path)")
                #expect(answer.headers[.contentType] == "application/json")
                #expect(try RoutedRequestTests.errorCode(answer) == "not-found")
                Self.expectSecure(answer)
            }
        }
    }

    @Test func anOffConsoleRegistersNothing() async throws {
        try await Self.withConsole(ConsoleSettings(enabled: false)) { client in
            let answer = try await client.execute(uri: "/console", method: .get)
            #expect(answer.status == .notFound)
            #expect(answer.headers[.contentSecurityPolicy] == nil)
        }
    }
}

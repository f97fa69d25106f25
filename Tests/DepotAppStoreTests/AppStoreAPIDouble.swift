import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// A local stand-in for the App Store Server API: a real HTTP server on loopback that records every request
/// and answers from a script, one answer per request, the last one repeating.
final class AppStoreAPIDouble: Sendable {
    struct Answer: Sendable {
        var status: HTTPResponse.Status
        var headers: [(String, String)] = []
        var body: String = ""
    }
    struct Recorded: Sendable {
        var method: String
        var path: String
        var authorization: String?
    }

    private let script: NIOLockedValueBox<[Answer]>
    private let recorded = NIOLockedValueBox<[Recorded]>([])

    init(_ script: [Answer]) { self.script = NIOLockedValueBox(script) }

    var requests: [Recorded] { recorded.withLockedValue { $0 } }

    /// Runs the double, hands `body` its base URL, then stops it.
    func run(_ body: (String) async throws -> Void) async throws {
        let router = Router()
        router.on("**", method: .post) { request, _ in self.answer(request) }
        router.on("**", method: .get) { request, _ in self.answer(request) }
        let (ports, sink) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "appstore-double")
        logger.logLevel = .critical
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in sink.yield(channel.localAddress?.port ?? 0) }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        do {
            try await body("http://127.0.0.1:\(port)")
        } catch {
            await group.triggerGracefulShutdown()
            _ = try? await task.value
            throw error
        }
        await group.triggerGracefulShutdown()
        try await task.value
    }

    private func answer(_ request: Request) -> Response {
        recorded.withLockedValue {
            $0.append(Recorded(method: request.method.rawValue, path: request.uri.path, authorization: request.headers[.authorization]))
        }
        let answer = script.withLockedValue { script in script.count > 1 ? script.removeFirst() : script[0] }
        var fields = HTTPFields()
        for (name, value) in answer.headers { fields[HTTPField.Name(name)!] = value }
        return Response(status: answer.status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: answer.body)))
    }
}

import DepotLedger
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DepotServer

/// `ReadinessRoute` on a router of its own, without a socket: ready, and each reason it gives for not being ready
/// (a ledger that fails or does not answer, a bundle store that cannot be written, an object store that cannot be
/// used, bundles not fetched or not sent), each a 503 in plain text that no cache keeps.
@Suite("Readiness route without a socket")
struct ReadinessRouteTests {
    /// The answer of `GET /readyz` for `route`.
    static func probe(_ route: ReadinessRoute) async throws -> (status: HTTPResponse.Status, text: String, cache: String?) {
        let router = Router(context: DepotRequestContext.self)
        route.register(on: router)
        return try await Application(router: router).test(.router) { client in
            let response = try await client.execute(uri: "/readyz", method: .get)
            #expect(response.headers[.contentType] == "text/plain; charset=utf-8")
            return (response.status, String(buffer: response.body), response.headers[.cacheControl])
        }
    }

    static let writable = FileManager.default.temporaryDirectory.path

    /// A route whose ledger read is `readLedger`, waited for long enough that only a read that never answers runs out
    /// (a loaded machine may be slow to run the read).
    static func route(
        storeDirectory: String = writable, _ readLedger: @escaping @Sendable () async throws(LedgerError) -> Void = {}
    ) -> ReadinessRoute {
        var route = ReadinessRoute(readLedger: readLedger, storeDirectory: storeDirectory)
        route.ledgerTimeout = .seconds(600)
        return route
    }

    @Test func aServerThatCanWorkIsReady() async throws {
        let answer = try await Self.probe(Self.route())
        #expect(answer.status == .ok)
        #expect(answer.text == "ready\n")
        #expect(answer.cache == "no-store")
    }

    @Test func aLedgerThatFailsOrDoesNotAnswerIsNotReady() async throws {
        let failing = try await Self.probe(
            Self.route { () async throws(LedgerError) in throw .unavailable("refused") })
        #expect(failing.status == .serviceUnavailable)
        #expect(failing.text == "not ready: the ledger cannot be read (refused)\n")
        #expect(failing.cache == "no-store")

        // A read that never answers while the probe waits: the probe answers on its own bound.
        let (released, release) = AsyncStream<Void>.makeStream()
        var route = ReadinessRoute(
            readLedger: { for await _ in released {} }, storeDirectory: Self.writable)
        route.ledgerTimeout = .milliseconds(1)
        let hung = try await Self.probe(route)
        release.finish()
        #expect(hung.status == .serviceUnavailable)
        #expect(hung.text.hasPrefix("not ready: the ledger did not answer within"))
    }

    @Test func aStoreThatCannotBeWrittenOrAnObjectStoreThatCannotBeUsedIsNotReady() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("readyz-\(UUID().uuidString)").path
        let unwritable = try await Self.probe(Self.route(storeDirectory: missing))
        #expect(unwritable.status == .serviceUnavailable)
        #expect(unwritable.text == "not ready: the bundle store \(missing) is not writable\n")

        var route = Self.route()
        route.objectStoreProblem = { "bucket unreachable" }
        let objectStore = try await Self.probe(route)
        #expect(objectStore.status == .serviceUnavailable)
        #expect(objectStore.text == "not ready: the object store cannot be used (bucket unreachable)\n")
        route.objectStoreProblem = { nil }
        #expect(try await Self.probe(route).status == .ok)
    }

    @Test(arguments: [
        (1, 0, "not ready: degraded: 1 published bundle cannot be fetched from the object store\n"),
        (3, 2, "not ready: degraded: 3 published bundles cannot be fetched from the object store\n"),
        (0, 1, "not ready: degraded: 1 bundle built here is not yet in the object store\n"),
        (0, 2, "not ready: degraded: 2 bundles built here are not yet in the object store\n"),
    ])
    func bundlesMissingFromTheObjectStoreDegradeTheInstance(unfetchable: Int, unsent: Int, text: String) async throws {
        var route = Self.route()
        route.replicaBacklog = { ReplicaBacklog(unfetchable: unfetchable, unsent: unsent) }
        let answer = try await Self.probe(route)
        #expect(answer.status == .serviceUnavailable)
        #expect(answer.text == text)
    }
}

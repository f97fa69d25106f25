@testable import DepotServerTestSupport
import DepotCore
import DepotLedger
import DepotTrust
import Foundation
import Testing

/// Two Depot instances sharing one ledger and one data directory (bundle store, development root), each on
/// its own port: a client may reach either for any step of the purchase flow. PostgreSQL is the engine made
/// for this; the SQLite file is tested too, as two instances on one host would share it.
@Suite("Two instances sharing one ledger and one bundle directory")
struct SharedLedgerInstanceTests {
    static let level1 = "com.example.level1"
    static let nonConsumable = DevelopmentTransactionBuilder.ProductType.nonConsumable

    static func sign(
        _ shared: SharedInstances, product: String = level1, type: String = nonConsumable
    )
        throws -> (jws: String, id: String)
    {
        try PurchaseRequests.sign(
            dataDirectory: shared.scratch.path + "/data", bundleId: "com.example.depot.test", product: product, type: type)
    }

    /// Redeems on `client`, expecting 200 and one download; returns the answer.
    static func redeem(_ client: RawHTTPClient, _ jws: String) async throws -> JSONAnswer {
        let response = try await client.request(PurchaseRequests.redeem(jws))
        #expect(response.status == 200, "\(response.text)")
        return try JSONAnswer(response)
    }

    static func report(_ client: RawHTTPClient, _ id: String) async throws -> JSONAnswer {
        let response = try await client.request(PurchaseRequests.report(id))
        try #require(response.status == 200, "\(response.text)")
        return try JSONAnswer(response)
    }

    static func events(_ report: JSONAnswer) -> [String] {
        report["audit"]?.array.compactMap { $0["event"]?.string } ?? []
    }

    @Test(arguments: LedgerEngine.tested)
    func aTransactionRedeemedOnOneFinishesOnTheOther(engine: LedgerEngine) async throws {
        try await SharedInstances.with(engine: engine) { shared in
            let (a, b) = (shared.servers[0], shared.servers[1])
            let clientA = try RawHTTPClient(port: a.port)
            let clientB = try RawHTTPClient(port: b.port)
            #expect(try a.version(Self.level1).digest == b.version(Self.level1).digest)

            let (jws, id) = try Self.sign(shared)
            let redeemed = try await Self.redeem(clientA, jws)
            #expect(redeemed["transaction.state"]?.string == "pending")
            let digest = try #require(redeemed["downloads.0.digest"]?.string)
            let url = try #require(redeemed["downloads.0.url"]?.string)

            // The grant A handed out opens the bundle on B (same keys, same store).
            let download = try await clientB.request(RawHTTPClient.get(url))
            #expect(download.status == 200)
            #expect(download.body == (try b.bundleBytes(digest)))
            #expect(SharedInstances.hexSHA256(download.body) == digest)

            // B knows the transaction A recorded.
            let pending = try await Self.report(clientB, id)
            #expect(pending["transaction.state"]?.string == "pending")
            #expect(Self.events(pending).first == "redeemed")

            let token = try #require(redeemed["transaction.finishToken"]?.string)
            let finished = try await clientB.request(
                PurchaseRequests.finish(id, token: token, delivered: [(contentId: Self.level1, digest: digest)]))
            #expect(finished.status == 200, "\(finished.text)")
            #expect(try JSONAnswer(finished)["transaction.state"]?.string == "finished")

            // A sees it finished: a repeated redemption says so, and so does its report.
            let again = try await Self.redeem(clientA, jws)
            #expect(again["transaction.state"]?.string == "finished")
            let report = try await Self.report(clientA, id)
            #expect(report["transaction.state"]?.string == "finished")
            #expect(report["deliveries.0.confirmedAt"]?.string != nil)
            #expect(Self.events(report).filter { $0 == "finished" }.count == 1)
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func aDownloadStartedOnOneResumesOnTheOther(engine: LedgerEngine) async throws {
        try await SharedInstances.with(engine: engine) { shared in
            let (a, b) = (shared.servers[0], shared.servers[1])
            let clientA = try RawHTTPClient(port: a.port)
            let clientB = try RawHTTPClient(port: b.port)
            let (jws, id) = try Self.sign(shared)
            let redeemed = try await Self.redeem(clientA, jws)
            let digest = try #require(redeemed["downloads.0.digest"]?.string)
            let url = try #require(redeemed["downloads.0.url"]?.string)
            let size = try #require(redeemed["downloads.0.size"]?.int)
            let expected = try a.bundleBytes(digest)
            #expect(expected.count == size)

            let cut = size / 3
            let first = try await clientA.request(RawHTTPClient.get(url, ["Range: bytes=0-\(cut)"]))
            #expect(first.status == 206)
            #expect(first.value("Content-Range") == "bytes 0-\(cut)/\(size)")
            let etag = try #require(first.value("ETag"))
            #expect(etag == "\"\(digest)\"")
            let rest = try await clientB.request(RawHTTPClient.get(url, ["Range: bytes=\(cut + 1)-", "If-Range: \(etag)"]))
            #expect(rest.status == 206)
            #expect(rest.value("Content-Range") == "bytes \(cut + 1)-\(size - 1)/\(size)")
            #expect(rest.value("ETag") == etag)
            #expect(first.value("Last-Modified") == rest.value("Last-Modified"))
            let joined = first.body + rest.body
            #expect(joined.count == size)
            #expect(joined == expected)
            #expect(SharedInstances.hexSHA256(joined) == digest)

            // Both instances recorded their part; the ledger merges them into the whole bundle, once.
            // Served bytes reach the ledger in the background: wait for them (the bound is a fallback only).
            var served = -1
            let waitStarted = ContinuousClock.now
            while ContinuousClock.now - waitStarted < .seconds(120) {
                served = try await Self.report(clientB, id)["deliveries.0.bytesServed"]?.int ?? -1
                if served == size { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(served == size)

            let finished = try await clientA.request(
                PurchaseRequests.finish(
                    id, token: try #require(redeemed["transaction.finishToken"]?.string),
                    delivered: [(contentId: Self.level1, digest: digest)]))
            #expect(finished.status == 200, "\(finished.text)")
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func concurrentFinishesOnBothInstancesFinishOnce(engine: LedgerEngine) async throws {
        try await SharedInstances.with(engine: engine) { shared in
            let ports = shared.servers.map(\.port)
            let setup = try RawHTTPClient(port: ports[0])
            var transactions: [(id: String, digest: String)] = []
            var tokens: [String: String] = [:]
            for index in 0..<4 {
                let (jws, id) = try Self.sign(shared)
                let client = index.isMultiple(of: 2) ? setup : try RawHTTPClient(port: ports[1])
                let redeemed = try await Self.redeem(client, jws)
                transactions.append((id, try #require(redeemed["downloads.0.digest"]?.string)))
                tokens[id] = try #require(redeemed["transaction.finishToken"]?.string)
            }

            // Ten finishes per transaction, five on each instance, all sent before any answer is read.
            var pending: [(client: RawHTTPClient, id: String)] = []
            for (id, _) in transactions {
                for index in 0..<10 { pending.append((try RawHTTPClient(port: ports[index % 2]), id)) }
            }
            let digests = Dictionary(uniqueKeysWithValues: transactions.map { ($0.id, $0.digest) })
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (client, id) in pending {
                    let request = PurchaseRequests.finish(
                        id, token: tokens[id]!, delivered: [(contentId: Self.level1, digest: digests[id]!)])
                    group.addTask { try await client.send(request) }
                }
                try await group.waitForAll()
            }
            for (client, id) in pending {
                let response = try await client.readResponse()
                #expect(response.status == 200, "\(id): \(response.text)")
                #expect(try JSONAnswer(response)["transaction.state"]?.string == "finished")
            }

            // Exactly one `finished` event per transaction, through either instance and in the ledger itself.
            for (index, port) in ports.enumerated() {
                let client = try RawHTTPClient(port: port)
                for (id, _) in transactions {
                    let report = try await Self.report(client, id)
                    #expect(Self.events(report).filter { $0 == "finished" }.count == 1, "instance \(index), \(id)")
                    #expect(report["transaction.state"]?.string == "finished")
                }
            }
            try await LedgerReader.with(shared.ledgerURL) { ledger in
                for (id, digest) in transactions {
                    let trail = try await ledger.auditTrail(transactionId: id).map(\.event)
                    #expect(trail.filter { $0 == "finished" }.count == 1, "\(id): \(trail)")
                    #expect(trail.filter { $0 == "redeemed" }.count == 1, "\(id): \(trail)")
                    #expect(try await ledger.transaction(id: id)?.state == .finished)
                    let deliveries = try await ledger.deliveries(transactionId: id)
                    #expect(deliveries.count == 1)
                    #expect(deliveries.allSatisfy { $0.confirmedAt != nil && $0.delivery.digest.hex == digest })
                }
            }
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func concurrentRedemptionsOnBothInstancesRecordOneTransaction(engine: LedgerEngine) async throws {
        try await SharedInstances.with(engine: engine) { shared in
            let ports = shared.servers.map(\.port)
            let (jws, id) = try Self.sign(shared)
            let clients = try (0..<10).map { try RawHTTPClient(port: ports[$0 % 2]) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in clients { group.addTask { try await client.send(PurchaseRequests.redeem(jws)) } }
                try await group.waitForAll()
            }
            for client in clients {
                let response = try await client.readResponse()
                #expect(response.status == 200, "\(response.text)")
                #expect(try JSONAnswer(response)["transaction.id"]?.string == id)
            }
            try await LedgerReader.with(shared.ledgerURL) { ledger in
                let trail = try await ledger.auditTrail(transactionId: id).map(\.event)
                #expect(trail.filter { $0 == "redeemed" }.count == 1, "\(trail)")
                #expect(trail.filter { $0 == "grants-issued" }.count == 10, "\(trail)")
                let deliveries = try await ledger.deliveries(transactionId: id)
                #expect(deliveries.map(\.grantsIssued) == [10])
            }
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func aRefundRecordedOnOneStopsGrantsOnTheOther(engine: LedgerEngine) async throws {
        try await SharedInstances.with(engine: engine) { shared in
            let (a, b) = (shared.servers[0], shared.servers[1])
            let clientA = try RawHTTPClient(port: a.port)
            let clientB = try RawHTTPClient(port: b.port)
            let (jws, id) = try Self.sign(shared)
            let url = try #require(try await Self.redeem(clientA, jws)["downloads.0.url"]?.string)
            #expect(try await clientB.request(RawHTTPClient.get(url, ["Range: bytes=0-99"])).status == 206)

            let authority = try DevelopmentCertificateAuthority.loadOrCreate(directory: shared.scratch.path + "/data/dev-ca")
            var refund = DevelopmentNotificationBuilder(notificationType: "REFUND", bundleId: "com.example.depot.test")
            refund.signedTransactionInfo = try PurchaseRequests.sign(
                dataDirectory: shared.scratch.path + "/data", bundleId: "com.example.depot.test", product: Self.level1,
                type: Self.nonConsumable
            ) {
                $0.transactionId = id
                $0.revocationDate = Int64(Date().timeIntervalSince1970 * 1000)
            }.jws
            let payload = try authority.sign(payload: refund.payload())
            let notified = try await clientA.request(
                PurchaseRequests.post("/v1/notifications/appstore", "{\"signedPayload\": \"\(payload)\"}"))
            #expect(notified.status == 200, "\(notified.text)")

            // A stops the grant at once; B reads the ledger on a redemption at once, and refreshes its
            // in-memory revocations within its interval (5 s).
            #expect(try await clientA.request(RawHTTPClient.get(url)).status == 403)
            #expect(try await clientB.request(PurchaseRequests.redeem(jws)).status == 410)
            var status = 0
            let started = ContinuousClock.now
            while ContinuousClock.now - started < .seconds(120) {
                status = try await clientB.request(RawHTTPClient.get(url, ["Range: bytes=0-99"])).status
                if status == 403 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(status == 403, "B still serves a refunded transaction's grant after \(ContinuousClock.now - started)")
        }
    }
}

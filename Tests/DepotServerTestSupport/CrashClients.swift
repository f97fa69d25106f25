import DepotTestSupport
import DepotTrust
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What the clients of a crash test did and saw, shared by their threads: every transaction they signed,
/// which finishes were answered 200, which jobs a kill interrupted (to be posted again, as StoreKit hands an
/// unfinished transaction over again on the next launch), and anything a live server must never answer.
final class CrashBook: Sendable {
    /// One purchase as an app holds it.
    struct Job: Sendable {
        var id: String
        var jws: String
        var product: String
    }

    /// A copy of the book at one moment.
    struct Snapshot {
        /// Transaction id → product, for every transaction ever posted.
        var signed: [String: String]
        /// Transactions whose finish was answered 200 `finished`.
        var finished: Set<String>
        /// Answers a live server must not give, or bytes that do not match their digest.
        var problems: [String]
        var redeemed = 0
        var downloaded = 0
        /// Flows a kill cut off, by the stage they were in.
        var interrupted: [FlowStage: Int] = [:]

        /// Every interrupted flow, whatever its stage.
        var interruptedTotal: Int { interrupted.values.reduce(0, +) }
    }

    private struct State {
        var signed: [String: String] = [:]
        var finished: Set<String> = []
        var retry: [Job] = []
        var problems: [String] = []
        var redeemed = 0
        var downloaded = 0
        var interrupted: [FlowStage: Int] = [:]
    }

    private let state = Mutex(State())

    func signed(_ job: Job) { state.withLock { $0.signed[job.id] = job.product } }

    /// A job a kill interrupted, if any is waiting.
    func takeRetry() -> Job? { state.withLock { $0.retry.isEmpty ? nil : $0.retry.removeFirst() } }

    /// A job that could not start (the server was down), to be tried again.
    func requeue(_ job: Job) { state.withLock { $0.retry.append(job) } }

    func interrupted(_ job: Job, at stage: FlowStage) {
        state.withLock {
            $0.retry.append(job)
            $0.interrupted[stage, default: 0] += 1
        }
    }

    func redeemed() { state.withLock { $0.redeemed += 1 } }
    func downloaded() { state.withLock { $0.downloaded += 1 } }
    func finished(_ id: String) { state.withLock { _ = $0.finished.insert(id) } }
    func problem(_ text: String) { state.withLock { $0.problems.append(text) } }

    func snapshot() -> Snapshot {
        state.withLock {
            Snapshot(
                signed: $0.signed, finished: $0.finished, problems: $0.problems, redeemed: $0.redeemed,
                downloaded: $0.downloaded, interrupted: $0.interrupted)
        }
    }
}

/// A flag the harness raises to stop its client threads.
final class StopFlag: Sendable {
    private let raised = Atomic<Bool>(false)
    var isRaised: Bool { raised.load(ordering: .acquiring) }
    func raise() { raised.store(true, ordering: .releasing) }
}

/// One app on a blocking thread: redeems (a new purchase, or one a kill interrupted), downloads every bundle
/// with its grant and checks its digest, then finishes with the digests; again and again until stopped.
/// Connection failures (the server was killed) put the job back for later. Every request sent and answer
/// read is told to the round's kill switch, which kills the server at its drawn point.
struct CrashClient: Sendable {
    let port: Int
    let book: CrashBook
    let stop: StopFlag
    let killSwitch: KillSwitch
    let authority: DevelopmentCertificateAuthority
    let bundleId: String
    /// Product ids with their App Store types; the first is drawn four times in five.
    let products: [(id: String, type: String)]
    let seed: UInt64

    /// Runs until `stop` is raised (blocking: call from a thread of its own).
    func runNow() {
        var random = SeededBytes(seed: seed)
        var connection: RawHTTPClient?
        while !stop.isRaised {
            let job: CrashBook.Job
            if let retry = book.takeRetry() {
                job = retry
            } else {
                let product = products.count > 1 && random.next() % 5 == 0 ? products[1] : products[0]
                var builder = DevelopmentTransactionBuilder(bundleId: bundleId, productId: product.id, type: product.type)
                builder.transactionId = "2" + String(random.next() % 1_000_000_000_000_000)
                guard let jws = try? authority.sign(payload: builder.payload()) else {
                    book.problem("could not sign a transaction")
                    return
                }
                job = CrashBook.Job(id: builder.transactionId, jws: jws, product: product.id)
                book.signed(job)
            }
            guard let client = connection ?? (try? RawHTTPClient(port: port)) else {
                // The server is down: nothing was sent, so nothing was interrupted.
                book.requeue(job)
                usleep(5000)
                continue
            }
            connection = client
            var stage = FlowStage.redeem
            do {
                try perform(job, on: client, stage: &stage)
            } catch {
                connection = nil
                book.interrupted(job, at: stage)
                usleep(5000)
            }
        }
    }

    /// One purchase flow; throws only when the connection fails.
    private func perform(_ job: CrashBook.Job, on client: RawHTTPClient, stage: inout FlowStage) throws {
        stage = .redeem
        let redeemed = try exchange(client, PurchaseRequests.redeem(job.jws), stage: .redeem)
        if redeemed.status == 409, redeemed.text.contains("consumable-finished") {
            // A consumable finished earlier whose answer a kill cut off: nothing more to do.
            return
        }
        guard redeemed.status == 200, let answer = try? JSONAnswer(redeemed) else {
            book.problem("redeem \(job.id): \(redeemed.status) \(redeemed.text)")
            return
        }
        book.redeemed()
        guard let token = answer["transaction.finishToken"]?.string else {
            book.problem("redeem \(job.id) gave no finish token: \(redeemed.text)")
            return
        }
        var delivered: [(contentId: String, digest: String)] = []
        for download in answer["downloads"]?.array ?? [] {
            guard let url = download["url"]?.string, let digest = download["digest"]?.string,
                let contentId = download["contentId"]?.string
            else {
                book.problem("redeem \(job.id): a download without url, digest or contentId: \(redeemed.text)")
                return
            }
            stage = .download
            let bundle = try exchange(client, RawHTTPClient.get(url), stage: .download)
            guard bundle.status == 200 else {
                book.problem("download for \(job.id): \(bundle.status) \(bundle.text.prefix(200))")
                return
            }
            guard SharedInstances.hexSHA256(bundle.body) == digest else {
                book.problem("download for \(job.id): \(bundle.body.count) bytes whose SHA-256 is not \(digest)")
                return
            }
            book.downloaded()
            delivered.append((contentId, digest))
        }
        guard !delivered.isEmpty else {
            book.problem("redeem \(job.id) offered no download: \(redeemed.text)")
            return
        }
        stage = .finish
        let finished = try exchange(client, PurchaseRequests.finish(job.id, token: token, delivered: delivered), stage: .finish)
        guard finished.status == 200, (try? JSONAnswer(finished))?["transaction.state"]?.string == "finished" else {
            book.problem("finish \(job.id): \(finished.status) \(finished.text)")
            return
        }
        book.finished(job.id)
    }

    private func exchange(_ client: RawHTTPClient, _ request: String, stage: FlowStage) throws -> RawHTTPClient.Response {
        try client.sendNow(request)
        killSwitch.sent(stage)
        let response = try client.readResponseNow()
        killSwitch.answered(stage)
        return response
    }
}

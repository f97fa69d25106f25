import DepotAPI
import DepotTestSupport
import NIOCore
import NIOHTTP1
import Testing

@testable import DepotOrigin

/// The connection's state machine driven by random but reproducible event sequences (a seed each), with a
/// simulated handler and a simulated Hummingbird around it, checking what must hold whatever the order of
/// events: one answer at a time, answers in the order of the requests, nothing after a close, and every
/// request answered unless a close came first.
@Suite("The bundle connection's state machine under random event orders")
struct BundleConnectionStateMachinePropertyTests {
    @Test(arguments: 0..<400)
    func invariantsHoldForEveryEventOrder(seed: Int) throws {
        var random = SeededBytes(seed: UInt64(seed) &* 0x9E37_79B9 &+ 17)
        var connection = SimulatedConnection(requests: SimulatedConnection.randomRequests(&random))
        try connection.run(&random)
        #expect(connection.violations.isEmpty, "seed \(seed): \(connection.violations.joined(separator: "; "))")
        // Every request before the first that ends the connection is answered (the last one that closes too).
        let closer = connection.requests.firstIndex(where: \.closes)
        let due = closer.map { $0 + 1 } ?? connection.requests.count
        if !connection.stoppedEarly {
            #expect(connection.completed == Array(0..<due), "seed \(seed): answered \(connection.completed) of \(due)")
        }
    }
}

/// One client request of a simulated connection.
struct SimulatedRequest {
    /// A bundle GET the machine answers itself, or a routed GET it hands on to Hummingbird.
    var isBundle: Bool
    /// Whether the request says `Connection: close`.
    var closes: Bool
    /// Whether the request arrives as bytes the recognizer reads whole (a plain bundle GET).
    var recognized: Bool
}

/// A connection: the client's requests arrive part by part, the machine's actions are carried out as the
/// handler would, and Hummingbird answers what it was handed, in order; the order of events is drawn at random.
struct SimulatedConnection {
    /// The requests the client sends, in order.
    let requests: [SimulatedRequest]
    /// What broke an invariant, in words.
    private(set) var violations: [String] = []
    /// Requests whose answer went out completely, in the order they did.
    private(set) var completed: [Int] = []
    /// A graceful shutdown began during the run: requests after it need not be answered.
    private(set) var stoppedEarly = false

    private var machine: BundleConnectionStateMachine
    private var now = NIODeadline.uptimeNanoseconds(1_000_000_000_000)
    /// The next request part to send: request index and part (0 head, 1 end).
    private var nextPart = (request: 0, part: 0)
    /// Our answer being written, and the request it answers.
    private var ourAnswer: Int?
    /// Requests handed on to Hummingbird, head and end, in order; the first is the one it answers next.
    private var forwarded: [(request: Int, ended: Bool)] = []
    /// How far Hummingbird got with its current answer: 0 nothing, 1 head written.
    private var routedProgress = 0
    private var resumeDue = false
    private var readPending = false
    private var closed = false
    /// Requests whose answer has started, in the order they did.
    private var started: [Int] = []

    init(requests: [SimulatedRequest]) {
        self.requests = requests
        machine = BundleConnectionStateMachine(
            timeouts: .init(idle: .seconds(60), request: .seconds(30), shutdownGrace: .seconds(10)),
            now: NIODeadline.uptimeNanoseconds(1_000_000_000_000))
    }

    /// One to eight requests, each a bundle or a routed GET, rarely with `Connection: close`.
    static func randomRequests(_ random: inout SeededBytes) -> [SimulatedRequest] {
        (0..<(1 + random.below(8))).map { _ in
            let isBundle = random.below(2) == 0
            return SimulatedRequest(
                isBundle: isBundle, closes: random.below(6) == 0, recognized: isBundle && random.below(2) == 0)
        }
    }

    /// Draws events until none is left or the connection closed; one run in ten has a graceful shutdown begin
    /// at a random moment.
    mutating func run(_ random: inout SeededBytes) throws {
        machine.connectionStarted(now: now)
        drainActions()
        let shutdownAt = random.below(10) == 0 ? random.below(4 * requests.count + 1) : nil
        var steps = 0
        var readTriedWhileIdle = false
        while !closed && steps < 10_000 {
            if steps == shutdownAt {
                stoppedEarly = true
                handle(.shutdown)
            }
            steps += 1
            var choices: [Event] = []
            if nextPart.request < requests.count { choices.append(.clientSends) }
            if ourAnswer != nil { choices.append(.answerWritten) }
            if let first = forwarded.first, first.ended || routedProgress > 0 { choices.append(.hummingbirdWrites) }
            if resumeDue { choices.append(.resume) }
            if choices.isEmpty {
                // Nothing is under way: one read the handler asks for is the last thing that could move it.
                guard readPending && !readTriedWhileIdle else { break }
                readTriedWhileIdle = true
                handle(.read)
                continue
            }
            readTriedWhileIdle = false
            if readPending { choices.append(.read) }
            handle(choices[random.below(choices.count)])
        }
    }

    private enum Event { case clientSends, answerWritten, hummingbirdWrites, resume, read, shutdown }

    private mutating func handle(_ event: Event) {
        now = now + .milliseconds(1)
        switch event {
        case .clientSends: sendNextPart()
        case .answerWritten:
            guard let request = ourAnswer else { return }
            ourAnswer = nil
            finish(request)
            machine.answerWritten(succeeded: true, inline: false, now: now)
        case .hummingbirdWrites: hummingbirdWrites()
        case .resume:
            resumeDue = false
            machine.resume(now: now)
        case .read:
            readPending = false
            machine.readRequested(now: now)
        case .shutdown:
            stoppedEarly = true
            machine.shutdownRequested()
        }
        drainActions()
    }

    private mutating func sendNextPart() {
        let index = nextPart.request
        let request = requests[index]
        let uri = request.isBundle ? "/v1/bundles/abcd\(index)" : "/v1/products?r=\(index)"
        if request.recognized {
            let target = BundleRequestTarget(uri: uri)!
            machine.requestBytesArrived()
            machine.requestRecognized(
                RecognizedBundleRequest(isHead: false, target: target, keepAlive: !request.closes, bearerToken: nil, conditions: nil),
                now: now)
            nextPart = (index + 1, 0)
            return
        }
        if nextPart.part == 0 {
            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: uri)
            if request.closes { head.headers.add(name: "Connection", value: "close") }
            machine.requestBytesArrived()
            machine.partReceived(.head(head), now: now)
            nextPart.part = 1
        } else {
            machine.partReceived(.end(nil), now: now)
            nextPart = (index + 1, 0)
        }
    }

    /// Hummingbird writes the next part of its answer to the first request handed on.
    private mutating func hummingbirdWrites() {
        guard let first = forwarded.first else { return }
        if routedProgress == 0 {
            begin(first.request)
            _ = machine.responseWritten(.head(status: 200, closes: requests[first.request].closes))
            routedProgress = 1
            return
        }
        guard first.ended else { return }
        forwarded.removeFirst()
        routedProgress = 0
        finish(first.request)
        if case .end(_, let thenClose) = machine.responseWritten(.end), thenClose { closed = true }
    }

    /// An answer to `request` starts: the one before it must be complete, and it must be the next request.
    private mutating func begin(_ request: Int) {
        if closed { violations.append("an answer to request \(request) started after the close") }
        if let current = ourAnswer {
            violations.append("an answer to request \(request) started while request \(current)'s was written")
        }
        if let last = started.last, !completed.contains(last) {
            violations.append("an answer to request \(request) started before request \(last)'s ended")
        }
        if request != started.count { violations.append("request \(request) answered out of order (expected \(started.count))") }
        started.append(request)
    }

    private mutating func finish(_ request: Int) {
        completed.append(request)
    }

    private mutating func drainActions() {
        while let action = machine.nextAction() {
            switch action {
            case .forward(.head(let head)):
                if closed { violations.append("a request was handed on after the close") }
                let request = Self.index(head.uri)
                if let last = forwarded.last, last.request >= request {
                    violations.append("request \(request) handed on after request \(last.request)")
                }
                forwarded.append((request, false))
            case .forward(.end):
                if forwarded.isEmpty || forwarded[forwarded.count - 1].ended {
                    violations.append("an end was handed on without its head")
                } else {
                    forwarded[forwarded.count - 1].ended = true
                }
            case .forward(.body), .endReadBurst, .sendContinue, .recordEvidence, .passShutdownOn, .passErrorOn,
                .scheduleIdleTimer, .scheduleDeadline, .cancelDeadline, .scheduleGraceClose, .cancelGraceClose,
                .cancelTimers:
                break
            case .answer(_, let head, _):
                let request = Self.index(head.uri)
                begin(request)
                ourAnswer = request
            case .answerRecognized(let recognized, _):
                let request = Self.index("/v1/bundles/" + recognized.target.digest)
                begin(request)
                ourAnswer = request
            case .read:
                if closed { violations.append("a read was asked after the close") }
                readPending = false
            case .resumeLater:
                resumeDue = true
            case .answerErrorAndClose(let error):
                violations.append("an error answer (\(error.status)) on a well-formed connection")
                closed = true
            case .close:
                closed = true
                machine.connectionEnded()
            }
        }
        // The handler asks for more bytes whenever the pipeline is ready for them.
        if !closed { readPending = true }
    }

    /// The request index carried in a URI (`/v1/bundles/abcdN` or `?r=N`).
    private static func index(_ uri: String) -> Int {
        let digits = uri.reversed().prefix { $0.isNumber }
        return Int(String(digits.reversed())) ?? -1
    }
}

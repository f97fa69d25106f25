import NIOHTTP1
import Testing

/// One scripted connection and every action it must produce (idle 60 s, request 30 s, grace 10 s).
struct ConnectionCase: CustomTestStringConvertible, Sendable {
    var name: String
    var steps: @Sendable () -> [ConnectionStep]
    var expected: [String]
    var testDescription: String { name }
}

private let bundle = "/v1/bundles/abc"
private let upload = "/v1/publisher/uploads"

@Suite("The bundle connection's state machine, event by event on a fake clock")
struct BundleConnectionStateMachineTests {
    static let cases: [ConnectionCase] = [
        ConnectionCase(
            name: "a bundle GET is answered at once, its evidence recorded once it went out",
            steps: { [.start, .bytes, .head(.GET, bundle), .end, .answered(succeeded: true, inline: true), .read] },
            expected: ["idle timer 60s", "deadline 30s", "answer bundle abc GET", "cancel deadline", "record", "read"]),
        ConnectionCase(
            name: "Connection: close is answered with close, and the connection closes after the answer",
            steps: { [.head(.GET, bundle, [("Connection", "close")]), .end, .answered(succeeded: true, inline: false)] },
            expected: ["deadline 30s", "answer bundle abc GET then close", "cancel deadline", "record", "cancel grace", "close"]),
        ConnectionCase(
            name: "requests pipelined behind an answer that closes the connection are not answered",
            steps: {
                [
                    .head(.GET, bundle, [("Connection", "close")]), .answered(succeeded: true, inline: true), .end,
                    .head(.GET, "/v1/bundles/def"), .end, .head(.GET, "/healthz"),
                ]
            },
            expected: ["deadline 30s", "answer bundle abc GET then close", "record", "cancel grace", "close"]),
        ConnectionCase(
            name: "an answer whose write failed records nothing and closes",
            steps: { [.head(.GET, bundle), .end, .answered(succeeded: false, inline: false)] },
            expected: ["deadline 30s", "answer bundle abc GET", "cancel deadline", "cancel grace", "close"]),
        ConnectionCase(
            name: "a bundle request waits behind a routed answer, and reads stop while it waits",
            steps: {
                [
                    .head(.GET, "/v1/products"), .end, .head(.GET, bundle), .end, .read, .responseHead(200), .responseBody,
                    .responseEnd, .resume, .answered(succeeded: true, inline: false), .resume,
                ]
            },
            expected: [
                "deadline 30s", "forward GET /v1/products", "cancel deadline", "forward end", "deadline 30s",
                "cancel deadline", "write passOn", "write passOn", "write end(belowEncoder: false, thenClose: false)",
                "resume later", "answer bundle abc GET", "read", "record", "resume later",
            ]),
        ConnectionCase(
            name: "a routed request behind a bundle answer being written waits for it, then ends its read burst",
            steps: { [.head(.GET, bundle), .end, .head(.GET, "/healthz"), .end, .answered(succeeded: true, inline: false), .resume] },
            expected: [
                "deadline 30s", "answer bundle abc GET", "cancel deadline", "deadline 30s", "cancel deadline", "record",
                "resume later", "forward GET /healthz", "forward end", "read-complete",
            ]),
        ConnectionCase(
            name: "a routed request behind a routed one is handed on at once (Hummingbird keeps their order)",
            steps: { [.head(.GET, "/v1/products"), .end, .head(.GET, "/healthz")] },
            expected: [
                "deadline 30s", "forward GET /v1/products", "cancel deadline", "forward end", "deadline 30s", "forward GET /healthz",
            ]),
        ConnectionCase(
            name: "pipelined bundle requests: an answer done inside its write lets the next one go at once",
            steps: { [.head(.GET, bundle), .end, .head(.GET, "/v1/bundles/def"), .end, .answered(succeeded: true, inline: true)] },
            expected: [
                "deadline 30s", "answer bundle abc GET", "cancel deadline", "deadline 30s", "cancel deadline", "record",
                "answer bundle def GET",
            ]),
        ConnectionCase(
            name: "the grant check is answered here too",
            steps: { [.head(.GET, "/v1/grants/check")] },
            expected: ["deadline 30s", "answer check GET"]),
        ConnectionCase(
            name: "a routed answer that says Connection: close (a 413 before the body) ends the connection, unread body and all",
            steps: {
                [
                    .head(.POST, "/v1/transactions"), .body, .responseHead(413, closes: true), .responseBody, .responseEnd,
                    .body, .end, .head(.GET, "/healthz"),
                ]
            },
            expected: [
                "deadline 30s", "forward POST /v1/transactions", "forward body", "write passOn", "write passOn",
                "write end(belowEncoder: false, thenClose: true)",
            ]),
        ConnectionCase(
            name: "a routed answer to a HEAD loses its body and ends below the encoder",
            steps: { [.head(.HEAD, "/healthz"), .end, .responseHead(404), .responseBody, .responseEnd] },
            expected: [
                "deadline 30s", "forward HEAD /healthz", "cancel deadline", "forward end", "write passOn", "write dropBody",
                "write end(belowEncoder: true, thenClose: false)", "resume later",
            ]),
        ConnectionCase(
            name: "after a bundle HEAD, a routed GET keeps its body",
            steps: {
                [
                    .head(.HEAD, bundle), .end, .answered(succeeded: true, inline: true), .head(.GET, "/healthz"), .end,
                    .responseHead(200), .responseBody, .responseEnd,
                ]
            },
            expected: [
                "deadline 30s", "answer bundle abc HEAD", "cancel deadline", "record", "deadline 30s", "forward GET /healthz",
                "cancel deadline", "forward end", "write passOn", "write passOn",
                "write end(belowEncoder: false, thenClose: false)", "resume later",
            ]),
        ConnectionCase(
            name: "pipelined routed HEAD and GET: only the HEAD's answer loses its body; an interim 1xx takes no turn",
            steps: {
                [
                    .head(.HEAD, "/healthz"), .end, .head(.GET, "/healthz"), .end, .responseHead(100), .responseHead(200),
                    .responseBody, .responseEnd, .responseHead(200), .responseBody, .responseEnd,
                ]
            },
            expected: [
                "deadline 30s", "forward HEAD /healthz", "cancel deadline", "forward end", "deadline 30s", "forward GET /healthz",
                "cancel deadline", "forward end", "write passOn", "write passOn", "write dropBody",
                "write end(belowEncoder: true, thenClose: false)", "write passOn", "write passOn",
                "write end(belowEncoder: false, thenClose: false)", "resume later",
            ]),
        ConnectionCase(
            name: "an upload sent with Expect: 100-continue gets its interim answer once its key was accepted",
            steps: { [.head(.POST, upload, [("Expect", "100-continue"), ("Content-Length", "3")]), .keyAccepted] },
            expected: ["deadline 30s", "forward POST /v1/publisher/uploads", "100-continue"]),
        ConnectionCase(
            name: "an upload refused before its key was accepted gets no 100-continue, and its answer closes",
            steps: {
                [
                    .head(.POST, upload, [("Expect", "100-continue"), ("Content-Length", "3")]),
                    .responseHead(401, closes: true), .responseEnd, .keyAccepted,
                ]
            },
            expected: [
                "deadline 30s", "forward POST /v1/publisher/uploads", "write passOn",
                "write end(belowEncoder: false, thenClose: true)", "key refused: closing",
            ]),
        ConnectionCase(
            name: "no 100-continue while an earlier answer is due: it may not overtake it",
            steps: {
                [
                    .head(.GET, "/v1/products"), .end, .head(.POST, upload, [("Expect", "100-continue"), ("Content-Length", "3")]),
                    .keyAccepted,
                ]
            },
            expected: [
                "deadline 30s", "forward GET /v1/products", "cancel deadline", "forward end", "deadline 30s",
                "forward POST /v1/publisher/uploads",
            ]),
        ConnectionCase(
            name: "an idle connection closes after the idle timeout",
            steps: { [.start, .at(60), .idleFired] },
            expected: ["idle timer 60s", "close"]),
        ConnectionCase(
            name: "the idle timeout runs from the end of the last answer",
            steps: {
                [
                    .start, .at(30), .head(.GET, bundle), .end, .answered(succeeded: true, inline: true), .at(60), .idleFired,
                    .at(90), .idleFired,
                ]
            },
            expected: ["idle timer 60s", "deadline 30s", "answer bundle abc GET", "cancel deadline", "record", "idle timer 30s", "close"]),
        ConnectionCase(
            name: "a connection with an answer due is not idle",
            steps: { [.start, .head(.GET, "/v1/products"), .end, .at(60), .idleFired] },
            expected: ["idle timer 60s", "deadline 30s", "forward GET /v1/products", "cancel deadline", "forward end", "idle timer 60s"]),
        ConnectionCase(
            name: "a graceful shutdown of an idle connection goes on to Hummingbird",
            steps: { [.shutdown] },
            expected: ["pass shutdown on"]),
        ConnectionCase(
            name: "a graceful shutdown during a download lets it end, then closes",
            steps: { [.head(.GET, bundle), .end, .shutdown, .answered(succeeded: true, inline: false)] },
            expected: ["deadline 30s", "answer bundle abc GET", "cancel deadline", "grace 10s", "record", "cancel grace", "close"]),
        ConnectionCase(
            name: "a download longer than the shutdown grace is cut",
            steps: { [.head(.GET, bundle), .end, .shutdown, .graceOver] },
            expected: ["deadline 30s", "answer bundle abc GET", "cancel deadline", "grace 10s", "close"]),
        ConnectionCase(
            name: "a bundle request after the shutdown began is answered with Connection: close",
            steps: { [.shutdown, .head(.GET, bundle)] },
            expected: ["pass shutdown on", "deadline 30s", "answer bundle abc GET then close"]),
        ConnectionCase(
            name: "an unreadable request on an idle connection is answered 400",
            steps: { [.bytes, .parserError] },
            expected: ["deadline 30s", "answer 400 and close"]),
        ConnectionCase(
            name: "an unreadable request behind a routed answer due leaves the error to the pipeline",
            steps: { [.head(.GET, "/v1/products"), .end, .parserError] },
            expected: ["deadline 30s", "forward GET /v1/products", "cancel deadline", "forward end", "pass error on"]),
        ConnectionCase(
            name: "bytes cut short by the close after a 408 are not answered again",
            steps: { [.bytes, .at(30), .deadlineFired, .parserError] },
            expected: ["deadline 30s", "answer 408 and close"]),
        ConnectionCase(
            name: "a request that does not arrive in time is answered 408",
            steps: { [.bytes, .at(30), .deadlineFired] },
            expected: ["deadline 30s", "answer 408 and close"]),
        ConnectionCase(
            name: "a late request behind a routed answer being written: the answer ends, then the connection closes",
            steps: { [.head(.GET, "/v1/products"), .end, .responseHead(200), .bytes, .at(30), .deadlineFired, .responseEnd] },
            expected: [
                "deadline 30s", "forward GET /v1/products", "cancel deadline", "forward end", "write passOn", "deadline 30s",
                "write end(belowEncoder: false, thenClose: true)",
            ]),
        ConnectionCase(
            name: "a bundle request answered on its head whose body never ends is closed at its deadline",
            steps: { [.head(.GET, bundle, [("Content-Length", "5")]), .answered(succeeded: true, inline: true), .at(30), .deadlineFired] },
            expected: ["deadline 30s", "answer bundle abc GET", "record", "close"]),
        ConnectionCase(
            name: "an upload's body is timed from its last progress while reads are asked",
            steps: {
                [
                    .head(.PATCH, upload + "/u1"), .keyAccepted, .read, .at(20), .body, .read, .at(30), .deadlineFired, .at(50),
                    .deadlineFired,
                ]
            },
            expected: [
                "deadline 30s", "forward PATCH /v1/publisher/uploads/u1", "read", "forward body", "read", "deadline 20s",
                "answer 408 and close",
            ]),
        ConnectionCase(
            name: "an upload is not timed while the server asks for no bytes",
            steps: { [.head(.PATCH, upload + "/u1"), .keyAccepted, .at(30), .deadlineFired] },
            expected: ["deadline 30s", "forward PATCH /v1/publisher/uploads/u1", "deadline 30s"]),
        ConnectionCase(
            name: "an upload whose key is accepted while a read waits is timed from then",
            steps: { [.head(.PATCH, upload + "/u1"), .read, .at(5), .keyAccepted, .at(30), .deadlineFired, .at(35), .deadlineFired] },
            expected: ["deadline 30s", "forward PATCH /v1/publisher/uploads/u1", "read", "deadline 5s", "answer 408 and close"]),
        ConnectionCase(
            name: "a key accepted after the whole-request deadline answered 408 is refused, so the route takes no body",
            steps: { [.head(.PATCH, upload + "/u1"), .read, .at(30), .deadlineFired, .keyAccepted] },
            expected: [
                "deadline 30s", "forward PATCH /v1/publisher/uploads/u1", "read", "answer 408 and close",
                "key refused: closing",
            ]),
        ConnectionCase(
            name: "an upload whose key was not accepted is held to the whole-request deadline, bytes or not",
            steps: { [.head(.PATCH, upload + "/u1"), .read, .at(20), .body, .read, .at(30), .deadlineFired] },
            expected: [
                "deadline 30s", "forward PATCH /v1/publisher/uploads/u1", "read", "forward body", "read",
                "answer 408 and close",
            ]),
        ConnectionCase(
            name: "a key accepted for an earlier request never gives a later one the progress deadline",
            steps: {
                [
                    .head(.PATCH, upload + "/u1"), .body, .end, .head(.PATCH, upload + "/u2"), .keyAccepted, .read, .at(20),
                    .body, .read, .at(30), .deadlineFired,
                ]
            },
            expected: [
                "deadline 30s", "forward PATCH /v1/publisher/uploads/u1", "forward body", "cancel deadline", "forward end",
                "deadline 30s", "forward PATCH /v1/publisher/uploads/u2", "read", "forward body", "read",
            ]),
        ConnectionCase(
            name: "a deadline after the request arrived in full does nothing",
            steps: { [.head(.GET, "/v1/products"), .end, .at(30), .deadlineFired] },
            expected: ["deadline 30s", "forward GET /v1/products", "cancel deadline", "forward end"]),
        ConnectionCase(
            name: "a connection that goes away drops what waits and stops its timers",
            steps: { [.head(.GET, "/v1/products"), .end, .head(.GET, bundle), .end, .gone, .read] },
            expected: [
                "deadline 30s", "forward GET /v1/products", "cancel deadline", "forward end", "deadline 30s", "cancel deadline",
                "cancel timers", "read",
            ]),
        // Requests read straight from the bytes, and heads over the limits.
        ConnectionCase(
            name: "a bundle request read from the bytes is answered at once",
            steps: { [.start, .bytes, .recognized(bundle), .answered(succeeded: true, inline: true), .read] },
            expected: ["idle timer 60s", "deadline 30s", "cancel deadline", "answer bundle abc GET (read from bytes)", "record", "read"]),
        ConnectionCase(
            name: "a bundle request read from the bytes waits behind a routed answer",
            steps: {
                [.head(.GET, "/v1/products"), .end, .recognized(bundle), .responseHead(200), .responseBody, .responseEnd, .resume]
            },
            expected: [
                "deadline 30s", "forward GET /v1/products", "cancel deadline", "forward end", "write passOn", "write passOn",
                "write end(belowEncoder: false, thenClose: false)", "resume later", "answer bundle abc GET (read from bytes)",
            ]),
        ConnectionCase(
            name: "a bundle request read from the bytes waits behind an answer of ours being written",
            steps: { [.recognized(bundle), .recognized("/v1/bundles/def"), .answered(succeeded: true, inline: false), .resume] },
            expected: [
                "answer bundle abc GET (read from bytes)", "record", "resume later", "answer bundle def GET (read from bytes)",
            ]),
        ConnectionCase(
            name: "a head over the limits is answered after the routed answer before it, then the connection closes",
            steps: { [.head(.GET, "/v1/products"), .end, .rejected(414), .responseHead(200), .responseEnd, .resume] },
            expected: [
                "deadline 30s", "forward GET /v1/products", "cancel deadline", "forward end", "write passOn",
                "write end(belowEncoder: false, thenClose: false)", "resume later", "answer 414 and close",
            ]),
        ConnectionCase(
            name: "nothing after a head over the limits is answered",
            steps: { [.bytes, .rejected(431), .recognized(bundle), .head(.GET, "/healthz")] },
            expected: ["deadline 30s", "cancel deadline", "answer 431 and close"]),
        ConnectionCase(
            name: "after a read answered in full the recognizer may read itself, with no action queued",
            steps: { [.recognized(bundle), .answered(succeeded: true, inline: true), .directRead] },
            expected: ["answer bundle abc GET (read from bytes)", "record", "read directly"]),
        ConnectionCase(
            name: "while a request waits behind an answer the recognizer may not read, and the pipeline's read is held",
            steps: {
                [
                    .recognized(bundle), .recognized("/v1/bundles/def"), .directRead, .read,
                    .answered(succeeded: true, inline: false), .resume,
                ]
            },
            expected: [
                "answer bundle abc GET (read from bytes)", "no direct read", "record", "resume later",
                "answer bundle def GET (read from bytes)", "read",
            ]),
    ]

    @Test(arguments: cases)
    func script(_ row: ConnectionCase) {
        #expect(runConnectionScript(row.steps()) == row.expected)
    }
}

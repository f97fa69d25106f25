import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import Testing

/// One purge as a hook received it.
struct ReceivedPurge: Equatable {
    var tags: [String]
    var paths: [String]
    var reason: String
    /// The tags given as arguments (a command) or nil (a POST).
    var arguments: [String]?
    /// `DEPOT_PURGE_REASON` (a command) or the Authorization field (a POST).
    var extra: String?

    /// Decodes the JSON body Depot sends.
    init(json: String, arguments: [String]?, extra: String?) throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "not JSON: \(json)")
        tags = try #require(object["tags"] as? [String])
        paths = try #require(object["paths"] as? [String])
        reason = try #require(object["reason"] as? String)
        self.arguments = arguments
        self.extra = extra
    }
}

/// A purge command: a shell script that appends what it got (reason, arguments, standard input) to a log file,
/// one line per run, and can be told to hang or to fail.
struct PurgeScript {
    let path: String
    let log: String

    /// Writes the script under `scratch`; `behaviour` is shell run after the line is logged (`exit 3`, `sleep 600`).
    init(in scratch: ScratchDirectory, behaviour: String = "") throws {
        path = scratch.path + "/purge.sh"
        log = scratch.path + "/purges.log"
        try scratch.write(
            "purge.sh",
            """
            #!/bin/sh
            input=$(cat)
            printf '%s\\t%s\\t%s\\t%s\\n' "$$" "$DEPOT_PURGE_REASON" "$*" "$input" >> "\(log)"
            \(behaviour)
            """)
        chmod(path, 0o755)
    }

    /// The runs so far, in order: the process id, then the purge.
    func runs() throws -> [(pid: Int32, purge: ReceivedPurge)] {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            try #require(fields.count == 4, "a log line has 4 fields: \(line)")
            let arguments = fields[2].split(separator: " ").map(String.init)
            return (Int32(fields[0]) ?? 0, try ReceivedPurge(json: fields[3], arguments: arguments, extra: fields[1]))
        }
    }
}

/// A tiny HTTP server taking purges at `POST /purge`: it answers 503 to the first `failures` requests and 204
/// to the rest, and keeps every request it got.
final class PurgeReceiver: Sendable {
    private let received = Mutex<[ReceivedPurge]>([])
    private let answered = Mutex<Int>(0)
    let failures: Int

    init(failures: Int = 0) { self.failures = failures }

    /// Requests received so far, failed ones included.
    var purges: [ReceivedPurge] { received.withLock { $0 } }

    /// Runs the receiver on 127.0.0.1 with a free port during `body`, then stops it.
    func run(_ body: (_ url: String) async throws -> Void) async throws {
        let router = Router()
        router.post("/purge") { request, _ -> Response in
            let bytes = try await request.body.collect(upTo: 1 << 20)
            let purge = try ReceivedPurge(
                json: String(buffer: bytes), arguments: nil, extra: request.headers[.authorization])
            self.received.withLock { $0.append(purge) }
            let number = self.answered.withLock { count in
                count += 1
                return count
            }
            return Response(status: number <= self.failures ? .serviceUnavailable : .noContent)
        }
        var logger = Logger(label: "purge-receiver")
        logger.logLevel = .warning
        let running = try await ListeningGroup.start(logger: logger) { ready in
            Application(
                router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { channel in await ready(channel.localAddress?.port ?? 0) }, logger: logger)
        }
        do {
            try await body("http://127.0.0.1:\(running.port)/purge")
        } catch {
            await running.stopAfterFailure()
            throw error
        }
        try await running.stop()
    }
}

@testable import DepotServerTestSupport
import DepotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The operator's alerts (`deploy/prometheus/depot-alerts.yml`) against a real Prometheus scraping a running
/// `depot serve`: Prometheus loads the rules and evaluates each without error, and every series the rules read exists
/// under the name and with the labels the rules read. An alert over a misspelt metric or label never fires; this is
/// where that would show. Prometheus is required in CI (`CI` set; Debian's `prometheus` package) and skipped elsewhere.
@Suite("Prometheus scraping depot serve: the series the alerts read exist")
struct PrometheusAlertSeriesTests {
    /// The series the rules read, and the labels they read of each (`job` as the scrape job sets it).
    static let series: [(name: String, labels: [String])] = [
        ("up", ["job", "instance"]),
        ("depot_ready", ["job", "instance"]),
        ("depot_ledger_available", ["job", "instance"]),
        ("depot_object_store_calls_total", ["job", "instance", "operation", "outcome"]),
        ("depot_apple_outbox_jobs", ["job", "state"]),
        ("depot_outbox_oldest_pending_seconds", ["job"]),
        ("depot_served_events_dropped_total", ["job", "instance"]),
        ("depot_google_play_unconfirmed_near_deadline", ["job"]),
        ("depot_disk_below_floor", ["job", "instance"]),
        ("depot_bundles_unsent", ["job", "instance"]),
    ]
    /// Label values the rules match exactly, which must occur.
    static let values: [(name: String, label: String, value: String)] = [
        ("depot_apple_outbox_jobs", "state", "failed"),
        ("depot_object_store_calls_total", "operation", "upload"),
    ]

    static var rulesPath: String { RepositoryRoot.path + "/deploy/prometheus/depot-alerts.yml" }

    /// The table above is the rules' own: every metric an expression names is in it, and every label an expression
    /// matches or groups by is one the table lists.
    @Test func theTableNamesEveryMetricAndLabelTheRulesRead() throws {
        let expressions = try String(contentsOfFile: Self.rulesPath, encoding: .utf8)
            .split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("expr:") }.joined(separator: "\n")
        let named = Set(expressions.matches(of: /\b(up|depot_[a-z_]+)\b/).map { String($0.output.1) })
        #expect(named == Set(Self.series.map(\.name)), "the rules read \(named.sorted())")
        let labels = Set(Self.series.flatMap(\.labels))
        var read = Set(expressions.matches(of: /([a-z_]+)\s*(?:=~|!~|!=|=)\s*"/).map { String($0.output.1) })
        for grouping in expressions.matches(of: /by\s*\(([^)]*)\)/) {
            read.formUnion(grouping.output.1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        #expect(read.isSubset(of: labels), "labels the table lacks: \(read.subtracting(labels).sorted())")
    }

    @Test(arguments: LedgerEngine.tested)
    func everySeriesTheRulesReadExistsWithItsLabels(engine: LedgerEngine) async throws {
        guard let prometheus = ExternalTool.require("prometheus"), let curl = ExternalTool.require("curl") else { return }
        guard let store = try await TestObjectStore.make() else { return }
        try await ServePlace.onEngine(engine) { binary, databaseURL in
            let scratch = try ScratchDirectory("prometheusSeries")
            defer { scratch.remove() }
            // The bucket makes the object store's series: each bundle imported at start is sent to it.
            try SharedInstances.writeConfiguration(
                in: scratch, settings: TestObjectStore.configurationSection(store.settings))
            try SharedInstances.write(SharedInstances.smallPacks, in: scratch)
            let place = ServePlace(scratch: scratch, databaseURL: databaseURL)
            let server = try await DepotProcess.start(binary: binary, arguments: place.arguments, environment: place.environment)
            defer { server.killIfRunning() }
            let depotPort = try #require(server.port)
            try await PrometheusProcess.with(
                binary: prometheus, in: scratch, scraping: depotPort, token: SharedInstances.adminToken,
                rules: Self.rulesPath
            ) { api in
                let query = PrometheusQueries(curl: curl, port: api)
                try await eventually("Prometheus scraped depot serve", within: 120) {
                    try await query.series("up{job=\"depot\"}").contains { $0["instance"] == "127.0.0.1:\(depotPort)" }
                }
                for (name, labels) in Self.series {
                    var found: [[String: String]] = []
                    try await eventually("the series \(name) in Prometheus", within: 120) {
                        found = try await query.series("\(name){job=\"depot\"}")
                        return !found.isEmpty
                    }
                    #expect(
                        found.contains { series in labels.allSatisfy { series[$0] != nil } },
                        "\(name) lacks a label of \(labels): \(found)")
                }
                for (name, label, value) in Self.values {
                    let found = try await query.series("\(name){job=\"depot\",\(label)=\"\(value)\"}")
                    #expect(!found.isEmpty, "no \(name) with \(label)=\"\(value)\"")
                }
                // Every rule was loaded and evaluated without error.
                let ruleCount = try String(contentsOfFile: Self.rulesPath, encoding: .utf8).components(separatedBy: "- alert:").count - 1
                try await eventually("every rule evaluated", within: 120) {
                    let rules = try await query.rules()
                    return rules.count == ruleCount && rules.allSatisfy { $0.health == "ok" }
                }
                let rules = try await query.rules()
                #expect(rules.count == ruleCount, "\(rules)")
                #expect(rules.allSatisfy { $0.health == "ok" }, "\(rules)")
                // A healthy instance raises none of them.
                let firing = try await query.alerts()
                #expect(firing.isEmpty, "alerts raised against a healthy depot: \(firing)")
            }
        }
    }
}

/// Prometheus's HTTP API, asked with curl.
struct PrometheusQueries {
    let curl: String
    let port: Int

    private func get(_ path: String, _ parameters: [String] = []) async throws -> [String: Any] {
        let output = try await ExternalTool.run(
            curl, ["-sS", "-G", "--max-time", "30", "http://127.0.0.1:\(port)\(path)"] + parameters.flatMap { ["--data-urlencode", $0] })
        #expect(output.status == 0, "\(output.combined)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.output.utf8)) as? [String: Any])
        #expect(object["status"] as? String == "success", "\(output.output)")
        return object
    }

    /// The label sets of the series `selector` matches.
    func series(_ selector: String) async throws -> [[String: String]] {
        let object = try await get("/api/v1/series", ["match[]=\(selector)"])
        return (object["data"] as? [[String: String]]) ?? []
    }

    /// Each alerting rule's name and health.
    func rules() async throws -> [(name: String, health: String)] {
        let object = try await get("/api/v1/rules")
        let groups = ((object["data"] as? [String: Any])?["groups"] as? [[String: Any]]) ?? []
        return groups.flatMap { ($0["rules"] as? [[String: Any]]) ?? [] }.map {
            ($0["name"] as? String ?? "", $0["health"] as? String ?? "")
        }
    }

    /// The names of the alerts pending or firing.
    func alerts() async throws -> [String] {
        let object = try await get("/api/v1/alerts")
        let alerts = ((object["data"] as? [String: Any])?["alerts"] as? [[String: Any]]) ?? []
        return alerts.compactMap { ($0["labels"] as? [String: String])?["alertname"] }
    }
}

/// A Prometheus server of a test: a configuration scraping one depot every second with the rules loaded, its storage
/// in the scratch directory, its API on a free loopback port; stopped (SIGTERM, then SIGKILL) and awaited at the end.
enum PrometheusProcess {
    struct StartError: Error, CustomStringConvertible {
        var description: String
    }

    static func with(
        binary: String, in scratch: ScratchDirectory, scraping depotPort: Int, token: String, rules: String,
        _ body: (_ apiPort: Int) async throws -> Void
    ) async throws {
        let configuration = scratch.path + "/prometheus.yml"
        try Data(
            """
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
              evaluation_interval: 1s
            rule_files:
              - \(rules)
            scrape_configs:
              - job_name: depot
                authorization:
                  credentials: \(token)
                static_configs:
                  - targets: ['127.0.0.1:\(depotPort)']
            """.utf8
        ).write(to: URL(fileURLWithPath: configuration))
        var lastFailure = ""
        // The port is chosen free, then bound by Prometheus (which cannot be given port 0): another process may take
        // it in between, so a start that fails on the address is tried again with another.
        for attempt in 0..<5 {
            let port = try NginxEdge.freePort()
            let logPath = scratch.path + "/prometheus-\(attempt).log"
            guard FileManager.default.createFile(atPath: logPath, contents: nil),
                let log = FileHandle(forWritingAtPath: logPath)
            else { throw StartError(description: "cannot make \(logPath)") }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = [
                "--config.file=\(configuration)", "--storage.tsdb.path=\(scratch.path)/prometheus-data-\(attempt)",
                "--web.listen-address=127.0.0.1:\(port)",
            ]
            process.standardError = log
            process.standardOutput = log
            process.standardInput = FileHandle.nullDevice
            let exit = try ProcessExit.run(process)
            try? log.close()
            let pid = process.processIdentifier
            let stop: @Sendable () async -> Void = {
                guard !exit.hasEnded else { return }
                kill(pid, SIGTERM)
                let deadline = ContinuousClock.now + .seconds(30)
                while !exit.hasEnded, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
                if !exit.hasEnded { kill(pid, SIGKILL) }
                _ = await exit.wait()
            }
            var ready = false
            let deadline = ContinuousClock.now + .seconds(120)
            while !exit.hasEnded, ContinuousClock.now < deadline {
                if let client = try? RawHTTPClient(port: port),
                    let answer = try? await client.request(RawHTTPClient.get("/-/ready")), answer.status == 200
                {
                    ready = true
                    break
                }
                try? await Task.sleep(for: .milliseconds(50))
            }
            guard ready else {
                await stop()
                lastFailure = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
                if lastFailure.contains("address already in use") { continue }
                throw StartError(description: "prometheus did not start: \(lastFailure)")
            }
            do {
                try await body(port)
            } catch {
                await stop()
                throw error
            }
            await stop()
            return
        }
        throw StartError(description: "prometheus found no free port: \(lastFailure)")
    }
}

@testable import DepotServerTestSupport
import DepotTestSupport
import Foundation
import Testing

/// `deploy/nginx/depot-edge.conf.template` has exactly the four documented placeholders, renders into a
/// configuration nginx accepts, and cannot be half-rendered into one that runs wrongly.
@Suite("nginx edge template")
struct EdgeTemplateTests {
    static let placeholders: Set<String> = ["EDGE_PORT", "DEPOT_ORIGIN", "CACHE_DIR", "EDGE_SECRET"]

    @Test func itsOnlyPlaceholdersAreTheFourDocumentedOnes() throws {
        let template = try String(contentsOfFile: NginxEdge.templatePath, encoding: .utf8)
        let regex = try NSRegularExpression(pattern: "\\$\\{([A-Za-z_][A-Za-z0-9_]*)\\}")
        let found = Set(
            regex.matches(in: template, range: NSRange(template.startIndex..., in: template)).compactMap {
                Range($0.range(at: 1), in: template).map { String(template[$0]) }
            })
        #expect(found == Self.placeholders)
    }

    @Test func nginxAcceptsTheRenderedTemplateAndRefusesOneWhoseVariablesWereSubstitutedAway() async throws {
        guard let nginx = ExternalTool.require("nginx"), let envsubst = ExternalTool.require("envsubst") else { return }
        let scratch = try ScratchDirectory(#function)
        defer { scratch.remove() }
        let variables = [
            "EDGE_PORT": "127.0.0.1:\(try NginxEdge.freePort())", "DEPOT_ORIGIN": "127.0.0.1:9", "CACHE_DIR": scratch.path,
            "EDGE_SECRET": String(repeating: "e", count: 32),
        ]
        let rendered = try await NginxEdge.render(envsubst: envsubst, variables: variables)
        for name in Self.placeholders { #expect(!rendered.contains("${\(name)}")) }
        #expect(rendered.contains("$slice_range") && rendered.contains("$upstream_cache_status"))
        try Data(rendered.utf8).write(to: URL(fileURLWithPath: scratch.path + "/edge.conf"))
        let accepted = try await ExternalTool.run(nginx, ["-t", "-c", scratch.path + "/edge.conf"])
        #expect(accepted.status == 0, "\(accepted.error)")
        for directory in ["bundles", "lists", "checks", "proxy_temp", "client_body_temp"] {
            #expect(FileManager.default.fileExists(atPath: scratch.path + "/" + directory), "\(directory) not under CACHE_DIR")
        }

        // envsubst without the list of names also empties nginx's own variables ($uri, $slice_range): nginx
        // must refuse the result rather than run with an empty cache key.
        let plain = try await NginxEdge.render(envsubst: envsubst, variables: variables, namingPlaceholders: false)
        #expect(!plain.contains("$slice_range"))
        try Data(plain.utf8).write(to: URL(fileURLWithPath: scratch.path + "/plain.conf"))
        let refused = try await ExternalTool.run(nginx, ["-t", "-c", scratch.path + "/plain.conf"])
        #expect(refused.status != 0)
    }
}

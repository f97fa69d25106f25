import DepotTestSupport
import Foundation
import Testing

/// Runs `depot` subcommands of the debug binary beside servers of a test: on one configuration, data
/// directory and ledger.
struct DepotCommand {
    let binary: String
    /// `--config`, `--data-dir` and, for PostgreSQL, `--database-url`.
    let place: [String]

    init(scratch: ScratchDirectory, databaseURL: String?) {
        // `debugBinary` counts from a file directly under Tests/DepotServerTests/; this one is a folder deeper.
        binary = DepotProcess.debugBinary(filePath: (#filePath as NSString).deletingLastPathComponent)
        place =
            ["--config", scratch.path + "/Config", "--data-dir", scratch.path + "/data"]
            + (databaseURL.map { ["--database-url", $0] } ?? [])
    }

    /// Runs `depot ARGUMENTS...` (with the place options for commands that take the ledger option) and returns
    /// its last line of output; a nonzero exit is a test failure.
    func lastLine(_ arguments: [String], ledger: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let options = ledger ? place : Array(place.prefix(4))
        let result = try await ExternalTool.run(binary, arguments + options)
        try #require(result.status == 0, "depot \(arguments.joined(separator: " ")): \(result.error)", sourceLocation: sourceLocation)
        return result.output.split(separator: "\n").last.map(String.init) ?? ""
    }

    /// A new publisher key for every product.
    func makeKey() async throws -> String {
        try await lastLine(["keys", "create", "--publisher", "studio"])
    }

    /// Stages a pack directory; returns the staged bundle's digest.
    func stage(_ directory: String, product: String) async throws -> String {
        let line = try await lastLine(["dev", "stage", directory, "--product", product])
        return String(line.split(separator: " ").last ?? "")
    }

    /// A grant for a bundle.
    func grant(_ digest: String) async throws -> String {
        try await lastLine(["dev", "grant", "--digest", digest], ledger: false)
    }
}

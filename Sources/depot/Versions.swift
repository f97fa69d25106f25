import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// `depot versions rollout|halt|promote PRODUCT VERSION`: a published version's release, through the publisher API.
struct Versions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Raise or halt a version's rollout, or promote a beta version to production.",
        subcommands: [VersionsRollout.self, VersionsHalt.self, VersionsPromote.self])
}

/// The options every `depot versions` command takes.
struct VersionTarget: ParsableArguments {
    @Argument(help: "The product.")
    var product: String

    @Argument(help: "The version.")
    var version: String

    @Option(help: "The content id, for a product with several contents at this version.")
    var contentId: String?

    @OptionGroup var connection: PublisherOptions

    /// Posts `body` to the version's `action` route and prints the version's release.
    func post(_ action: String, _ body: [String: Any]?) async throws {
        do {
            try await send(action, body)
        } catch {
            FileHandle.standardError.write(Data("depot versions \(action): \(error.description)\n".utf8))
            throw ExitCode.failure
        }
    }

    private func send(_ action: String, _ body: [String: Any]?) async throws(PublishError) {
        let (server, key) = try connection.resolved()
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton, configuration: .init(timeout: .init(connect: .seconds(10), read: .seconds(60))))
        let api = PublisherAPI(client: client, server: server, key: key)
        var path = "/v1/publisher/products/\(Self.escaped(product))/versions/\(Self.escaped(version))/\(action)"
        if let contentId { path += "?contentId=\(Self.escaped(contentId))" }
        let answer: [String: Any]
        do {
            answer = try await api.json(.POST, path, body, doing: "\(action) of \(version)")
        } catch {
            try? await client.shutdown()
            throw error
        }
        try? await client.shutdown()
        print(ReleaseOptions.line(answer, product: product, version: version))
    }

    private static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?"))) ?? text
    }
}

/// `depot versions rollout PRODUCT VERSION --percent N`.
struct VersionsRollout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollout", abstract: "Roll a version out to a percent of buyers, or raise its rollout (100 completes it).")

    @OptionGroup var target: VersionTarget

    @Option(help: "The percent of buyers (1-100); a rollout only grows.")
    var percent: Int

    func run() async throws {
        try await target.post("rollout", ["percent": percent])
    }
}

/// `depot versions halt PRODUCT VERSION`.
struct VersionsHalt: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "halt", abstract: "Halt a rollout: nobody new gets the version; buyers who got it keep it.")

    @OptionGroup var target: VersionTarget

    func run() async throws {
        try await target.post("halt", nil)
    }
}

/// `depot versions promote PRODUCT VERSION [--rollout N]`.
struct VersionsPromote: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "promote", abstract: "Publish a beta version to production, in full or to a percent of buyers.")

    @OptionGroup var target: VersionTarget

    @Option(help: "Offer it to this percent of production buyers (1-100) instead of everyone.")
    var rollout: Int?

    func run() async throws {
        try await target.post("promote", try ReleaseOptions.body(rollout: rollout, channel: nil))
    }
}

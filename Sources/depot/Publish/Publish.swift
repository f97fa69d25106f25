import ArgumentParser
import AsyncHTTPClient
import DepotCore
import Foundation
import NIOCore
import NIOHTTP1

/// `depot publish DIR --product ID --version V [--server URL] [--key KEY] [--publish]`: packs a folder (a pack with
/// `pack.json` and `Contents/`, or without `pack.json`, or plain files that are the content itself) into a
/// deterministic tar, uploads it with tus (resuming after a cut, and across reruns: the same folder
/// gives the same archive, whose upload is remembered under the state directory), asks the server to make
/// it a version, waits until it is staged, and publishes it when asked: in full, to `--rollout` percent of the
/// buyers, or to the beta `--channel`.
struct Publish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Upload a pack folder as a new version of a product, wait until it is staged, optionally publish it."
    )

    @Argument(
        help: "The folder to publish: a pack (pack.json and Contents/), Contents/ alone, or plain files (the folder is the content)."
    )
    var directory: String

    @Option(help: "The product the version belongs to.")
    var product: String

    @Option(help: "The version (a pack.json in the folder must say the same).")
    var version: String

    @Option(help: "The content id, for a product with several contents (a subscription's issues).")
    var contentId: String?

    @OptionGroup var connection: PublisherOptions

    @Flag(help: "Publish the version once it is staged.")
    var publish = false

    @Option(help: "With --publish: offer the version to this percent of buyers (1-100) beside the current version.")
    var rollout: Int?

    @Option(help: "With --publish: production (the default) or beta (test purchases only).")
    var channel: String?

    @Option(
        name: .customLong("state-dir"), help: "Where archives and upload addresses are kept between runs (default: ~/.cache/depot/publish)."
    )
    var stateDir: String?

    @Option(help: "How many times a cut upload is resumed before giving up.")
    var retries = 20

    @Option(name: .customLong("wait-seconds"), help: "How long to wait for the version to be staged.")
    var waitSeconds = 3600

    func validate() throws {
        // The server refuses such a version too; saying so before packing and uploading saves the upload.
        guard VersionName.isAcceptable(version) else { throw ValidationError("--version must be \(VersionName.rule)") }
    }

    func run() async throws {
        do {
            try await publishVersion()
        } catch {
            FileHandle.standardError.write(Data("depot publish: \(error.description)\n".utf8))
            throw ExitCode.failure
        }
    }

    private func publishVersion() async throws(PublishError) {
        let environment = ProcessInfo.processInfo.environment
        let (server, key) = try connection.resolved()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw PublishError("\(directory) is not a folder")
        }
        let release = try ReleaseOptions.body(rollout: rollout, channel: channel)
        if !release.isEmpty, !publish { throw PublishError("--rollout and --channel take effect with --publish") }
        let state = PublishState(directory: stateDir ?? PublishState.defaultDirectory(environment))
        let archive = try state.archive(of: directory)
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(timeout: .init(connect: .seconds(10), read: .seconds(120))))
        let api = PublisherAPI(client: client, server: server, key: key)
        do {
            let location = try await upload(archive, state: state, api: api)
            let jobId = try await requestVersion(archive, upload: location, api: api)
            try await waitUntilStaged(jobId, api: api)
            state.forget(archive, server: server)
            print("staged \(product) \(version)")
            if publish {
                var path = "/v1/publisher/products/\(product)/versions/\(version)/publish"
                if let contentId { path += "?contentId=\(contentId)" }
                let answer = try await api.json(.POST, path, release.isEmpty ? nil : release, doing: "publishing \(version)")
                print(ReleaseOptions.line(answer, product: product, version: version))
            }
        } catch {
            try? await client.shutdown()
            throw error
        }
        try? await client.shutdown()
    }

    /// Uploads the archive, resuming a remembered upload of the same bytes, and after each cut.
    /// Returns the upload's address.
    private func upload(
        _ archive: PublishState.Archive, state: PublishState, api: PublisherAPI
    ) async throws(PublishError)
        -> String
    {
        var location = state.location(of: archive, server: api.server)
        var offset: Int64? = nil
        if let known = location { offset = try await api.offset(of: known, length: archive.size) }
        if offset == nil {
            location = try await api.createUpload(length: archive.size, filename: (directory as NSString).lastPathComponent + ".tar")
            offset = 0
            state.remember(archive, server: api.server, location: location!)
        } else {
            FileHandle.standardError.write(Data("resuming the upload at byte \(offset!) of \(archive.size)\n".utf8))
        }
        guard let location, var offset else { throw PublishError("the server gave no upload address") }
        let progress = TransferProgress(label: "uploading", total: archive.size, offset: offset)
        var failures = 0
        while offset < archive.size {
            do {
                offset = try await api.patch(location, file: archive.path, from: offset, length: archive.size) { sent in
                    progress.update(sent)
                }
                failures = 0
            } catch {
                failures += 1
                guard failures <= retries else { throw PublishError("the upload kept failing: \(error.description)") }
                let wait = min(30, 1 << min(failures - 1, 5))
                FileHandle.standardError.write(Data("upload cut (\(error.description)); resuming in \(wait) s\n".utf8))
                try? await Task.sleep(for: .seconds(wait))
                guard let resumed = try? await api.offset(of: location, length: archive.size) else { continue }
                offset = resumed
            }
        }

        return location
    }

    private func requestVersion(
        _ archive: PublishState.Archive, upload location: String, api: PublisherAPI
    )
        async throws(PublishError) -> String
    {
        guard let uploadId = location.split(separator: "/").last.map(String.init) else {
            throw PublishError("the server gave no upload address")
        }
        var body: [String: Any] = ["upload": uploadId, "version": version, "sha256": archive.sha256]
        if let contentId { body["contentId"] = contentId }
        let answer = try await api.json(.POST, "/v1/publisher/products/\(product)/versions", body, doing: "asking for version \(version)")
        guard let job = (answer["version"] as? [String: Any])?["job"] as? String else {
            throw PublishError("the server accepted the version but named no job")
        }
        return job
    }

    /// Polls the versions list until the job left it (staged) or failed.
    private func waitUntilStaged(_ job: String, api: PublisherAPI) async throws(PublishError) {
        let deadline = Date().addingTimeInterval(TimeInterval(waitSeconds))
        var lastState = ""
        while Date() < deadline {
            let list = try await api.json(.GET, "/v1/publisher/products/\(product)/versions", doing: "reading the versions")
            let versions = list["versions"] as? [[String: Any]] ?? []
            guard let entry = versions.first(where: { $0["job"] as? String == job }) else { return }
            let state = entry["state"] as? String ?? "?"
            if state == "failed" {
                throw PublishError("version \(version) failed: \(entry["failureReason"] as? String ?? "no reason given")")
            }
            if state != lastState {
                FileHandle.standardError.write(Data("version \(version): \(state)\n".utf8))
                lastState = state
            }
            try? await Task.sleep(for: .milliseconds(500))
        }
        throw PublishError("version \(version) was not staged within \(waitSeconds) s (last state: \(lastState))")
    }
}

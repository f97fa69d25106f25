import DepotServices
import Foundation

/// Reading and checking `edge.purge` in `depot.json`.
extension ConfigurationLoader {
    /// Fields the purge POST sets itself, which `edge.purge.headers` must not name.
    private static let purgeOwnFields: Set<String> = ["content-type", "content-length", "host", "transfer-encoding", "connection"]

    /// The purge hook, with every value checked; the message names the field at fault. A command's program
    /// is looked up on `PATH` now, so a typo stops the start instead of every purge.
    static func purgeHookSettings(
        _ purge: ConfigurationFile.PurgeHook, in file: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigurationError) -> PurgeHookSettings {
        let target: PurgeHookSettings.Target
        switch (purge.command, purge.url) {
        case (nil, nil), (.some, .some):
            throw ConfigurationError(
                "\(file): edge.purge needs exactly one of \"command\" (a program and its arguments) or \"url\" (where purges are POSTed)")
        case (let command?, nil):
            guard purge.headers == nil else {
                throw ConfigurationError("\(file): edge.purge.headers applies to a \"url\" hook only")
            }
            target = .command(try purgeCommand(command, in: file, environment: environment))
        case (nil, let url?):
            target = .url(try purgeURL(url, in: file), headers: try purgeHeaders(purge.headers ?? [:], in: file))
        }
        var settings = PurgeHookSettings(target: target)
        if let retries = purge.retries {
            settings.retries = try ConfigurationError.inRange(
                retries, 0...PurgeHookSettings.maximumRetries, setting: "edge.purge.retries", in: file)
        }
        if let seconds = purge.timeoutSeconds {
            settings.timeoutSeconds = try ConfigurationError.inRange(
                seconds, 1...PurgeHookSettings.maximumTimeoutSeconds, setting: "edge.purge.timeoutSeconds", in: file)
        }
        if let milliseconds = purge.backoffMilliseconds {
            settings.backoffMilliseconds = try ConfigurationError.inRange(
                milliseconds, 1...PurgeHookSettings.maximumBackoffMilliseconds, setting: "edge.purge.backoffMilliseconds", in: file)
        }
        if let capacity = purge.queueCapacity {
            settings.queueCapacity = try ConfigurationError.inRange(
                capacity, 1...PurgeHookSettings.maximumQueueCapacity, setting: "edge.purge.queueCapacity", in: file)
        }
        return settings
    }

    /// The command with its program made an absolute path.
    private static func purgeCommand(
        _ command: [String], in file: String, environment: [String: String]
    ) throws(ConfigurationError)
        -> [String]
    {
        guard let program = command.first, !program.isEmpty else {
            throw ConfigurationError("\(file): edge.purge.command must start with a program, such as [\"/usr/local/bin/purge-edge\"]")
        }
        guard command.allSatisfy({ !$0.utf8.contains(0) }) else {
            throw ConfigurationError("\(file): edge.purge.command must not contain NUL characters")
        }
        let candidates: [String]
        if program.contains("/") {
            candidates = [program]
        } else {
            candidates = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map {
                ($0.isEmpty ? "." : String($0)) + "/" + program
            }
        }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw ConfigurationError(
                program.contains("/")
                    ? "\(file): edge.purge.command names \(program), which is not an executable file"
                    : "\(file): edge.purge.command names \(program), which is not an executable program on PATH")
        }
        return [found] + command.dropFirst()
    }

    /// An http or https URL with a host.
    private static func purgeURL(_ text: String, in file: String) throws(ConfigurationError) -> String {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else {
            throw ConfigurationError("\(file): edge.purge.url must be an http:// or https:// URL with a host, not \"\(text)\"")
        }
        return text
    }

    /// Extra header fields: RFC 9110 tokens as names, values without control characters.
    private static func purgeHeaders(_ headers: [String: String], in file: String) throws(ConfigurationError) -> [String: String] {
        let tokenCharacters = Set("!#$%&'*+-.^_`|~".utf8)
        for (name, value) in headers {
            guard !name.isEmpty, name.utf8.count <= 64,
                name.utf8.allSatisfy({
                    ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || tokenCharacters.contains($0)
                })
            else {
                throw ConfigurationError("\(file): edge.purge.headers has \"\(name)\", which is not a header field name")
            }
            guard !purgeOwnFields.contains(name.lowercased()) else {
                throw ConfigurationError("\(file): edge.purge.headers must not set \(name): the purge POST sets it itself")
            }
            guard value.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 }) else {
                // The value is not echoed: it may be a credential.
                throw ConfigurationError("\(file): edge.purge.headers[\"\(name)\"] must not contain control characters")
            }
        }
        return headers
    }
}

/// The release options `depot publish` and `depot versions` share: the JSON they send, and the line they print.
enum ReleaseOptions {
    /// The publish body for `--rollout` and `--channel` (empty: in full, to production).
    static func body(rollout: Int?, channel: String?) throws(PublishError) -> [String: Any] {
        var body: [String: Any] = [:]
        if let rollout {
            guard (1...100).contains(rollout) else { throw PublishError("--rollout is a percent from 1 to 100, not \(rollout)") }
            body["rollout"] = rollout
        }
        if let channel {
            guard channel == "production" || channel == "beta" else {
                throw PublishError("--channel is production or beta, not \(channel)")
            }
            if channel == "beta", rollout != nil { throw PublishError("a beta version reaches every test purchase; leave out --rollout") }
            body["channel"] = channel
        }
        return body
    }

    /// What a release answer says, as one line: `published P V`, with the release when it is not a full one, and
    /// `(a rollback)`.
    static func line(_ answer: [String: Any], product: String, version: String) -> String {
        var line = "published \(product) \(version)"
        let body = answer["version"] as? [String: Any]
        if let release = body?["release"] as? [String: Any] {
            let channel = release["channel"] as? String ?? "production"
            let percent = release["rollout"] as? Int ?? 100
            if channel == "beta" {
                line += " to beta"
            } else if percent < 100 {
                line += " to \(percent)% of buyers" + ((release["halted"] as? Bool ?? false) ? ", halted" : "")
            }
        }
        if answer["rollback"] as? Bool ?? false { line += " (a rollback)" }
        return line
    }
}

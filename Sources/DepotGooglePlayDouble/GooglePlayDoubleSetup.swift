/// The `googlePlay.developerAPI` section of `Config/depot.json` that points Depot at a running double.
package enum GooglePlayDoubleSetup {
    /// The package name the double answers for unless told another.
    package static let defaultPackageName = "com.example.game"

    /// The double's base URL when it listens on `host:port` (an IPv6 address in brackets).
    package static func baseURL(host: String, port: Int) -> String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return "http://\(shown):\(port)"
    }

    /// The token endpoint under `baseURL`.
    package static func tokenURL(baseURL: String) -> String {
        baseURL + "/token"
    }

    /// One line of JSON: `{"serviceAccountKeyPath", "baseURL", "tokenURL"}`.
    package static func configurationJSON(serviceAccountKeyPath: String, baseURL: String) -> String {
        "{\"serviceAccountKeyPath\": \(quoted(serviceAccountKeyPath)), \"baseURL\": \(quoted(baseURL)), "
            + "\"tokenURL\": \(quoted(tokenURL(baseURL: baseURL)))}"
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

import Foundation

/// The `appStoreServerAPI` section of `Config/depot.json` that points Depot at a running double.
package enum AppStoreDoubleSetup {
    /// The App Store environments the double answers for, each mapped to the double itself.
    package static let environments = ["Production", "Sandbox", "Xcode", "LocalTesting"]

    /// One line of JSON: `{"issuerId", "keyId", "privateKeyPath", "bundleId", "baseURLs": {ENVIRONMENT: URL}}`.
    package static func configurationJSON(key: AppStoreDoubleKey, bundleId: String, baseURL: String) -> String {
        let urls = environments.map { "\(quoted($0)): \(quoted(baseURL))" }.joined(separator: ", ")
        return "{\"issuerId\": \(quoted(key.issuerId)), \"keyId\": \(quoted(key.keyId)), "
            + "\"privateKeyPath\": \(quoted(key.privateKeyPath)), \"bundleId\": \(quoted(bundleId)), \"baseURLs\": {\(urls)}}"
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

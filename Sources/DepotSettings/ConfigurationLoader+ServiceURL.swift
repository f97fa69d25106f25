import Foundation

extension ConfigurationLoader {
    /// A URL Depot calls a store's service at, as `setting` gives it: https (or http outside production), with a
    /// host, without query or fragment; else the setting is named as wrong.
    static func serviceURL(
        _ url: String, setting: String, deployment: DeploymentEnvironment, in file: String
    ) throws(ConfigurationError) -> String {
        let schemes = deployment == .production ? ["https"] : ["https", "http"]
        guard let parsed = URLComponents(string: url), let scheme = parsed.scheme, schemes.contains(scheme),
            parsed.host?.isEmpty == false, parsed.query == nil, parsed.fragment == nil
        else {
            throw ConfigurationError(
                "\(file): \(setting) must be an \(schemes.joined(separator: " or ")) URL without query, not \"\(url)\"")
        }
        return url
    }
}

import DepotCore
import DepotTrust

extension ConfigurationLoader {
    /// The `googlePlay` section: `packageName` (Android's rule: two or more dot-separated segments of letters,
    /// digits and `_`, each starting with a letter), `licenseKeys` (at least one base64 key, as Play Console shows
    /// it) and `products` (Play product id → Depot product id, at least one). Nil without the section.
    static func googlePlaySettings(
        _ section: ConfigurationFile.GooglePlay?, in file: String
    ) throws(ConfigurationError) -> GooglePlaySettings? {
        guard let section else { return nil }
        guard let packageName = section.packageName, isPackageName(packageName) else {
            throw ConfigurationError(
                "\(file): googlePlay.packageName must be the app's package name, such as com.example.game")
        }
        let texts = section.licenseKeys ?? []
        guard !texts.isEmpty else {
            throw ConfigurationError(
                "\(file): googlePlay.licenseKeys must hold the app's licensing key (Play Console: Monetization setup, Licensing)")
        }
        var keys: [GooglePlayLicenseKey] = []
        for (index, text) in texts.enumerated() {
            do {
                keys.append(try GooglePlayLicenseKey(base64: text))
            } catch {
                throw ConfigurationError("\(file): googlePlay.licenseKeys[\(index)] \(error.reason)")
            }
        }
        let products = section.products ?? [:]
        guard !products.isEmpty else {
            throw ConfigurationError("\(file): googlePlay.products must map at least one Play product id to a product id")
        }
        for (playId, productId) in products.sorted(by: { $0.key < $1.key }) {
            guard !playId.isEmpty, playId.utf8.count <= 256 else {
                throw ConfigurationError("\(file): googlePlay.products has a Play product id that is empty or longer than 256 bytes")
            }
            guard Identifier.isAcceptable(productId) else {
                throw ConfigurationError(
                    "\(file): googlePlay.products.\(playId) names \"\(productId)\", which is not \(Identifier.rule())")
            }
        }
        return GooglePlaySettings(packageName: packageName, licenseKeys: keys, products: products)
    }

    /// Whether `name` follows Android's rule for an application id.
    static func isPackageName(_ name: String) -> Bool {
        let segments = name.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count >= 2, name.utf8.count <= 255 else { return false }
        return segments.allSatisfy { segment in
            guard let first = segment.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
            return segment.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
        }
    }
}

import DepotServer
import DepotSettings
import DepotTrust
import Foundation

/// The genuine app receipts kept outside the repository (`../shared/realworld/app-receipts` from the repository
/// root), and a server configuration for the app each belongs to.
enum AppReceiptFixture {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/realworld/app-receipts")

    /// Apple Root CA, the root of receipt chains.
    static var appleRootPath: String { directory.appendingPathComponent("apple-inc-root.pem").path }

    /// A receipt's bytes.
    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name + ".der")))
    }

    /// A receipt as the app sends it: standard base64.
    static func base64(_ name: String) throws -> String { Data(try bytes(name)).base64EncodedString() }

    /// The `receipt` object of the JSON beside a receipt.
    static func fields(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: directory.appendingPathComponent(name + ".json"))
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["receipt"] as? [String: Any] ?? [:]
    }

    /// Rewrites the test configuration in `scratch` for the app `bundleId`: receipts checked against Apple Root CA,
    /// Production and Sandbox accepted, and `products` (id → type) as the catalog.
    static func configure(_ scratch: ScratchDirectory, bundleId: String, products: [(id: String, type: String)]) throws {
        let path = scratch.path + "/Config/depot.json"
        var depot = try require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        depot["app"] = ["bundleId": bundleId]
        depot["appStore"] = [
            "trustDevelopmentRoot": true, "receiptRoots": [appleRootPath], "environments": ["Production", "Sandbox"],
        ]
        try scratch.write("Config/depot.json", Array(try JSONSerialization.data(withJSONObject: depot)))
        let list = products.map { ["id": $0.id, "type": $0.type, "title": $0.id] as [String: Any] }
        try scratch.write("Config/products.json", Array(try JSONSerialization.data(withJSONObject: ["products": list])))
    }

    /// The JSON of an object.
    static func json(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }
}

/// `#require` without Testing's macro in a support file: the value, or a thrown error naming what was missing.
private func `require`<T>(_ value: T?) throws -> T {
    guard let value else { throw FixtureError.missing }
    return value
}

private enum FixtureError: Error { case missing }

extension AppReceiptFixture {
    /// A receipt (base64) holding one purchase of `product`, signed by `application`'s development receipt root.
    static func sign(
        _ application: DepotApplication, product: String, type: String = "nonConsumable",
        configure: (inout DevelopmentReceiptBuilder) -> Void = { _ in }
    ) throws -> (receipt: String, id: String) {
        let authority = try DevelopmentReceiptAuthority.loadOrCreate(
            directory: TrustSetup.developmentReceiptDirectory(application.configuration))
        var builder = DevelopmentReceiptBuilder(bundleId: application.configuration.appBundleId, productId: product, type: type)
        configure(&builder)
        return (Data(try authority.sign(payload: try builder.payload())).base64EncodedString(), builder.transactionId)
    }
}

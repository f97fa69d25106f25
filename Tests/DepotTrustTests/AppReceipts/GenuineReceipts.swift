import DepotCore
import Foundation

@testable import DepotTrust

/// The app receipts kept outside the repository (`../shared/realworld/app-receipts` from the repository root),
/// each with a JSON of its decoded fields.
enum GenuineReceipts {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/realworld/app-receipts")

    /// The six Apple-signed receipts.
    static let appleSigned = [
        "production-2015-kargotakip-no-iap", "production-2018-qrcodes-two-nonconsumables",
        "production-2024-pure-subscriptions", "sandbox-2016-zhihu-consumable", "sandbox-2020-nutcall-187-subscriptions",
        "sandbox-2025-weeka-subscription",
    ]

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name + ".der")))
    }

    /// The decoded fields beside a receipt (its `receipt` object).
    static func fields(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: directory.appendingPathComponent(name + ".json"))
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return object?["receipt"] as? [String: Any] ?? [:]
    }

    /// A certificate file of the folder (PEM), as DER.
    static func certificateDER(_ file: String) throws -> [UInt8] {
        let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
        let body = text.components(separatedBy: "-----BEGIN CERTIFICATE-----")[1]
            .components(separatedBy: "-----END CERTIFICATE-----")[0].filter { !$0.isWhitespace }
        return Array(Data(base64Encoded: body) ?? Data())
    }

    /// Milliseconds since 1970 of an ISO 8601 date as the JSON writes it (`Z`); nil for the empty string.
    static func milliseconds(_ text: String?) -> Int64? {
        guard let text, !text.isEmpty, let date = ISO8601DateFormatter().date(from: text) else { return nil }
        return Int64(date.timeIntervalSince1970 * 1000)
    }

    /// A verifier trusting `roots` (Apple Root CA when not given), for `bundleId`, with a clock at `now`
    /// (milliseconds) or the real clock.
    static func verifier(
        bundleId: String, roots: [[UInt8]]? = nil, environments: Set<String> = ["Production", "Sandbox", "Xcode"],
        now: Int64? = nil
    ) throws -> AppReceiptVerifier {
        let clock: @Sendable () -> Date =
            if let now { { Date(timeIntervalSince1970: Double(now) / 1000) } } else { { Date() } }
        return try AppReceiptVerifier(
            trustedRootsDER: try roots ?? [certificateDER("apple-inc-root.pem")], bundleId: bundleId,
            acceptedEnvironments: environments, now: clock)
    }
}

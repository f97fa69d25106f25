import DepotGooglePlayDouble
import DepotTestSupport
import Foundation

/// The Google Play double running for a test, with a service account of its own under a scratch directory, and
/// the `googlePlay` section that points Depot at it (the genuine app's package, `signer`'s licensing key).
struct GooglePlayDoubleFixture {
    let double: GooglePlayDouble
    let account: GooglePlayDoubleServiceAccount
    /// `http://127.0.0.1:PORT`.
    let base: String

    /// Runs the double while `body` runs.
    static func with(_ name: String = #function, _ body: (GooglePlayDoubleFixture) async throws -> Void) async throws {
        let scratch = try ScratchDirectory(name + "-googleplay-account")
        defer { scratch.remove() }
        let account = try GooglePlayDoubleServiceAccount.loadOrCreate(dataDirectory: scratch.path)
        let double = GooglePlayDouble(serviceAccount: account, packageName: GooglePlayFixture.packageName)
        try await double.withRunning { base in
            try await body(GooglePlayDoubleFixture(double: double, account: account, base: base))
        }
    }

    /// The `"googlePlay": {...}` member: `level1` sold as the level, `coins` as the consumable, the Developer API
    /// at the double (or its calls at `base`), the outbox looking every 50 ms, retries after at most a second,
    /// the voided purchases polled every `voidedIntervalSeconds` (0: off), notifications taken with the token
    /// whose SHA-256 is `notificationTokenSHA256`; `acceptTestPurchases` as given (nil: the default).
    func settings(
        _ signer: GooglePlayTestSigner, base: String? = nil, leaseSeconds: Int = 120, timeoutSeconds: Int = 60,
        voidedIntervalSeconds: Int = 0, notificationTokenSHA256: String? = nil, pushAudience: String? = nil,
        acceptTestPurchases: Bool? = nil
    ) -> String {
        var members: [String] = []
        if let notificationTokenSHA256 { members.append("\"tokenSHA256\": [\"\(notificationTokenSHA256)\"]") }
        if let pushAudience {
            members.append(
                "\"oidc\": {\"audience\": \"\(pushAudience)\", \"serviceAccountEmail\": \"\(Self.pushAccount)\", "
                    + "\"certificatesURL\": \"\(self.base)/oauth2/v3/certs\"}")
        }
        var notifications = members.isEmpty ? "" : "\"notifications\": {\(members.joined(separator: ", "))}, "
        if let acceptTestPurchases { notifications += "\"acceptTestPurchases\": \(acceptTestPurchases), " }
        return """
            "googlePlay": {\(notifications)"packageName": "\(GooglePlayFixture.packageName)", "licenseKeys": ["\(signer.publicKeyBase64)"],
              "products": {"level1": "com.example.level1", "coins": "com.example.coins", "monthly_sub": "com.example.monthly"},
              "developerAPI": {"serviceAccountKeyPath": "\(account.keyFilePath ?? "")", "baseURL": "\(base ?? self.base)",
                "tokenURL": "\(self.base)/token", "timeoutSeconds": \(timeoutSeconds),
                "outbox": {"pollIntervalMilliseconds": 50, "baseDelaySeconds": 1, "maxDelaySeconds": 1, "leaseSeconds": \(leaseSeconds)},
                "voidedPurchases": {"intervalSeconds": \(voidedIntervalSeconds), "overlapSeconds": 60, "lookbackDays": 1}}}
            """
    }

    /// The account the double's push tokens are for, as a push subscription's would be.
    static let pushAccount = "pubsub-push@depot-double.iam.gserviceaccount.com"

    /// An OIDC token the double signs as Google signs a push's.
    func pushToken(audience: String, email: String = Self.pushAccount, expiresIn: Int64 = 3600) throws -> String {
        guard let token = double.pushToken(audience: audience, email: email, expiresIn: expiresIn) else {
            throw CancellationError()
        }
        return token
    }

    /// Holds a purchase at the double (a one-time product, or a subscription running until `expiry`, milliseconds
    /// since 1970) of `quantity` units, `refundableQuantity` of them still refundable (nil: all), and returns its
    /// purchase data, signed by `signer`, carrying `obfuscatedAccountId` when given (the account the app set at
    /// purchase).
    func purchase(
        _ signer: GooglePlayTestSigner, productId: String = "level1",
        orderId: String = GooglePlayDouble.makeOrderId(), purchaseTime: Int64? = nil, expiry: Int64? = nil,
        quantity: Int = 1, refundableQuantity: Int? = nil, obfuscatedAccountId: String? = nil
    ) throws -> (data: String, signature: String, token: String, orderId: String) {
        let token = "token-\(UUID().uuidString.lowercased())"
        let now = purchaseTime ?? Int64(Date().timeIntervalSince1970 * 1000)
        var held = GooglePlayDoublePurchase(
            purchaseToken: token, productId: productId, kind: expiry == nil ? .product : .subscription, orderId: orderId,
            purchaseTimeMillis: now, expiryTimeMillis: expiry, quantity: quantity)
        held.refundableQuantity = refundableQuantity
        double.holdPurchase(held)
        let data = GooglePlayTestSigner.purchaseData(
            orderId: orderId, packageName: GooglePlayFixture.packageName, productId: productId, purchaseTime: now,
            purchaseToken: token, quantity: quantity,
            extra: obfuscatedAccountId.map { "\"obfuscatedAccountId\":\"\($0)\"" } ?? "")
        return (data, try signer.sign(data), token, orderId)
    }

    /// How many of the API calls ending in `:action` (`acknowledge`, `consume`) the double answered 200, by token.
    func completed(_ action: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        for request in double.requests where request.status == 200 && request.method == "POST" {
            let path = request.path.split(separator: "?").first.map(String.init) ?? request.path
            guard path.hasSuffix(":" + action), let last = path.split(separator: "/").last else { continue }
            let token = String(last.dropLast(action.count + 1))
            counts[token.removingPercentEncoding ?? token, default: 0] += 1
        }
        return counts
    }
}

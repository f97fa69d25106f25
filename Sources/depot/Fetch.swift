import ArgumentParser
import DepotClient
import Foundation

/// `depot fetch --server URL (--transaction JWS | --transaction-file F | --google-purchase F --google-signature F)
/// --out DIR [--installed ID=VERSION ...]`:
/// what an app does after a purchase, on the command line: redeem, download (resuming what an earlier run
/// left), verify, unpack, finish.
struct Fetch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Redeem a purchase (App Store or Google Play), download and unpack its content into a folder, then confirm the delivery.",
        discussion: """
            Each content is installed in OUT/<content id> (ContentInfo.plist beside Contents/). An interrupted run \
            leaves OUT/<content id>.<digest>.partial behind; running the same command again resumes it.
            Exit status: 0 delivered and finished; 3 the server cannot be reached, or its answers keep ending \
            before the bundle does; 4 the server refused (a 416 on every retry included); \
            5 a bundle's digest is wrong; 6 a bundle is unsafe or does not fit the installed version; \
            7 a local file error; 1 anything else.
            """
    )

    @Option(help: "The Depot server, such as http://127.0.0.1:8080.")
    var server: String

    @Option(help: "The signed transaction (JWS).")
    var transaction: String?

    @Option(name: .customLong("transaction-file"), help: "A file holding the signed transaction.")
    var transactionFile: String?

    @Option(
        name: .customLong("google-purchase"),
        help: "A file holding a Google Play purchase's data, exactly as Play Billing's getOriginalJson() gave it.")
    var googlePurchase: String?

    @Option(name: .customLong("google-signature"), help: "A file holding that purchase's signature (getSignature(), base64).")
    var googleSignature: String?

    @Option(name: .customLong("app-receipt"), help: "A file holding a StoreKit 1 app receipt (its bytes, or base64).")
    var appReceipt: String?

    @Option(name: .customLong("transaction-id"), help: "With --app-receipt: the id of the purchase in the receipt.")
    var transactionId: String?

    @Option(
        name: .customLong("device-id"),
        help: "With --app-receipt: the device's identifierForVendor (a UUID) the receipt was issued to.")
    var deviceId: String?

    @Option(help: "The folder to install the content in.")
    var out: String

    @Option(help: "A version already installed, as CONTENT_ID=VERSION, so that a delta can be downloaded (repeatable).")
    var installed: [String] = []

    @Option(name: .customLong("app-account-token"), help: "The app account token (a UUID) of the account redeeming.")
    var appAccountToken: String?

    func validate() throws {
        guard (googlePurchase == nil) == (googleSignature == nil) else {
            throw ValidationError("--google-purchase and --google-signature go together")
        }
        guard (appReceipt == nil) == (transactionId == nil) else {
            throw ValidationError("--app-receipt and --transaction-id go together")
        }
        if let deviceId {
            guard appReceipt != nil else { throw ValidationError("--device-id goes with --app-receipt") }
            guard deviceId.utf8.count == 36, UUID(uuidString: deviceId) != nil else {
                throw ValidationError("--device-id must be a UUID such as identifierForVendor")
            }
        }
        guard [transaction != nil, transactionFile != nil, googlePurchase != nil, appReceipt != nil].filter({ $0 }).count == 1 else {
            throw ValidationError("give exactly one of --transaction, --transaction-file, --google-purchase and --app-receipt")
        }
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw ValidationError("--server must be an http or https URL such as http://127.0.0.1:8080")
        }
        _ = try installedContents()
        if let appAccountToken, UUID(uuidString: appAccountToken) == nil {
            throw ValidationError("--app-account-token must be a UUID")
        }
    }

    func run() async throws {
        let purchase = try presentedPurchase()
        let client = DepotClient(server: URL(string: server)!)
        let output = FetchOutput()
        let installed = try installedContents()
        do throws(DepotClientError) {
            let delivery = try await client.delivery(
                of: purchase, into: URL(fileURLWithPath: out, isDirectory: true), installed: installed,
                appAccountToken: appAccountToken.flatMap(UUID.init(uuidString:)))
            output.line("transaction \(delivery.redemption.transaction.id): \(delivery.downloads.count) download(s)")
            let reporters = delivery.downloads.map { download in
                Task { await output.follow(download) }
            }
            let outcome: DeliveryOutcome
            do throws(DepotClientError) {
                outcome = try await delivery.run()
            } catch {
                for download in delivery.downloads where !download.current.state.isTerminal { download.cancel() }
                for reporter in reporters { await reporter.value }
                throw error
            }
            for reporter in reporters { await reporter.value }
            for content in outcome.installed {
                print("installed \(content.contentId) \(content.version) at \(content.folder.path)")
            }
            switch purchase {
            case .appStore, .appReceipt:
                print("finished transaction \(outcome.transaction.id): the StoreKit transaction may be finished now")
            case .googlePlay:
                print("finished transaction \(outcome.transaction.id): the Google Play purchase may be acknowledged now")
            }
        } catch {
            FetchOutput.error("depot fetch: \(error.description)")
            throw ExitCode(Self.exitStatus(error))
        }
    }

    /// The exit status for a failure (see the discussion above).
    static func exitStatus(_ error: DepotClientError) -> Int32 {
        switch error.code {
        case .network: 3
        case .server: 4
        case .digestMismatch: 5
        case .unsafeBundle, .bundleMismatch: 6
        case .io: 7
        default: 1
        }
    }

    private func presentedPurchase() throws -> PresentedPurchase {
        if let transaction { return .appStore(signedTransaction: transaction) }
        if let transactionFile {
            return .appStore(signedTransaction: try Self.read(transactionFile, "the transaction file").trimmingWhitespace)
        }
        if let appReceipt, let transactionId {
            guard let bytes = FileManager.default.contents(atPath: appReceipt) else {
                FetchOutput.error("depot fetch: cannot read the app receipt file \(appReceipt)")
                throw ExitCode(7)
            }
            // The receipt's bytes as the app reads them, or their base64 (as `depot dev sign-receipt` prints it).
            let text = String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }
            let receipt = bytes.first == 0x30 ? bytes : Data(base64Encoded: text) ?? bytes
            return .appReceipt(receipt, transactionId: transactionId, deviceId: deviceId.flatMap(UUID.init(uuidString:)))
        }
        // The purchase data is sent byte for byte: its signature covers it exactly, trailing newline included.
        let data = try Self.read(googlePurchase ?? "", "the Google Play purchase file")
        let signature = try Self.read(googleSignature ?? "", "the Google Play signature file").trimmingWhitespace
        return .googlePlay(GooglePlayPurchase(purchaseData: data, signature: signature))
    }

    /// A file's text, or exit status 7 with a sentence naming `what`.
    private static func read(_ path: String, _ what: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            FetchOutput.error("depot fetch: cannot read \(what) \(path)")
            throw ExitCode(7)
        }
        return String(decoding: data, as: UTF8.self)
    }

    private func installedContents() throws -> [InstalledContent] {
        try installed.map { item in
            let parts = item.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("--installed takes CONTENT_ID=VERSION, not \(item)")
            }
            return InstalledContent(contentId: String(parts[0]), version: String(parts[1]))
        }
    }
}

extension String {
    /// The text without white space and line breaks at either end.
    fileprivate var trimmingWhitespace: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}

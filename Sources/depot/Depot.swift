import ArgumentParser

/// The `depot` command: serve content, and tools for local development.
@main
struct Depot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "depot",
        abstract: "Delivers purchased in-app content: verifies transactions, serves bundles, records deliveries.",
        subcommands: [Serve.self, Publish.self, Versions.self, Fetch.self, Transactions.self, Keys.self, Dev.self, UnpackArchive.self],
        defaultSubcommand: Serve.self
    )
}

/// `depot dev ...`: helpers for local development and testing.
struct Dev: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Tools for local development: a development root, signed transactions and notifications, grants, staging a pack, App Store Server API and Google Play Developer API doubles.",
        subcommands: [
            DevInit.self, DevGrant.self, DevSignTransaction.self, DevSignReceipt.self, DevSignNotification.self,
            DevSignAccountAssertion.self, DevStage.self,
            DevAppStore.self, DevSignatureSpeed.self,
            DevGooglePlay.self,
        ]
    )
}

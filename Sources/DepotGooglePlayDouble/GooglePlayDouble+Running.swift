import DepotDoubleSupport
import Hummingbird
import Logging
import ServiceLifecycle

extension GooglePlayDouble {
    /// Serves the double on a free loopback port while `body` runs with its base URL (`http://127.0.0.1:PORT`;
    /// the token endpoint is that plus `/token`), then shuts it down gracefully. The service account's key file,
    /// when it has one, is rewritten first with that token URI.
    package func withRunning<T>(logger: Logger = GooglePlayDouble.quietLogger, _ body: (String) async throws -> T) async throws -> T {
        try await LocalDoubleServer.withRunning(
            logger: logger, makeApplication: { onRunning in makeApplication(port: 0, logger: logger, onRunning: onRunning) }
        ) { baseURL in
            try serviceAccount.writeKeyFile(tokenURI: GooglePlayDoubleSetup.tokenURL(baseURL: baseURL))
            return try await body(baseURL)
        }
    }

    /// A logger that passes errors only, for tests.
    package static let quietLogger: Logger = {
        var logger = Logger(label: "depot.googleplay-double")
        logger.logLevel = .error
        return logger
    }()
}

import DepotDoubleSupport
import Hummingbird
import Logging
import ServiceLifecycle

extension AppStoreDouble {
    /// Serves the double on a free loopback port while `body` runs with its base URL (`http://127.0.0.1:PORT`),
    /// then shuts it down gracefully.
    package func withRunning<T>(logger: Logger = AppStoreDouble.quietLogger, _ body: (String) async throws -> T) async throws -> T {
        try await LocalDoubleServer.withRunning(
            logger: logger, makeApplication: { onRunning in makeApplication(port: 0, logger: logger, onRunning: onRunning) }, body)
    }

    /// A logger that passes errors only, for tests.
    package static let quietLogger: Logger = {
        var logger = Logger(label: "depot.appstore-double")
        logger.logLevel = .error
        return logger
    }()
}

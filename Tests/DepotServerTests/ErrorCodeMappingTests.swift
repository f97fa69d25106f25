import DepotAPI
import DepotTrust
import Hummingbird
import Logging
import Testing

@testable import DepotServer
@testable import DepotServices

/// The errors of other targets that reach clients through the routes, under their own codes: every one a row
/// of `ErrorCode`'s table, answered with the table's status.
@Suite("Error codes of the routes")
struct ErrorCodeMappingTests {
    static let verificationCodes: [AppStoreVerificationError.Code] = [
        .configurationInvalid, .jwsMalformed, .jwsUnsupportedAlgorithm, .x5cMissing, .x5cWrongCount,
        .certificateMalformed, .chainUntrusted, .certificateExpired, .leafOIDMissing, .intermediateOIDMissing,
        .signatureInvalid, .payloadMalformed, .payloadInconsistent, .signedInFuture, .bundleIdMismatch,
        .environmentNotAccepted,
    ]

    /// A refused JWS reaches the client under the verifier's own code, with the table's status.
    @Test(arguments: verificationCodes)
    func verificationCodesAreRowsOfTheTable(code: AppStoreVerificationError.Code) throws {
        let row = try #require(ErrorCode(rawValue: code.description), "ErrorCode lacks \(code)")
        let error = DepotError(DeliveryError.purchaseRefused(AppStoreVerificationError(code, "refused").refusal))
        #expect(error.code == code.description)
        #expect(error.status == row.status)
    }

    @Test(arguments: [
        StageError.Code.invalidPack, .packMismatch, .unknownProduct, .versionExists, .contentOwned, .unavailable,
    ])
    func stagingCodesAreRowsOfTheTable(code: StageError.Code) throws {
        let row = try #require(ErrorCode(rawValue: code.rawValue), "ErrorCode lacks \(code.rawValue)")
        let error = StageError(code, "refused").depotError
        #expect(error.code == code.rawValue)
        #expect(error.status == row.status)
    }

    /// Errors Hummingbird throws (no route, an unreadable parameter or body) become the table's codes.
    @Test(arguments: [
        (HTTPResponse.Status.badRequest, "bad-request", 400), (.notFound, "not-found", 404),
        (.methodNotAllowed, "method-not-allowed", 405), (.contentTooLarge, "too-large", 413),
        (.rangeNotSatisfiable, "internal", 500), (.conflict, "internal", 500),
    ])
    func routerErrorsBecomeCodesOfTheTable(status: HTTPResponse.Status, code: String, answered: Int) {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let error = ErrorBodyMiddleware<DepotRequestContext>.depotError(HTTPError(status, message: "detail"), logger: logger)
        #expect(error.code == code)
        #expect(error.status == answered)
    }
}

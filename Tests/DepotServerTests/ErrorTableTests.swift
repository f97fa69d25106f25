@testable import DepotServerTestSupport
import DepotAPI
@testable import DepotOrigin
import DepotTrust
import Foundation
import Hummingbird
import Logging
import Testing

@testable import DepotServer
@testable import DepotServices

/// `ErrorCode`, the server's one table of error codes, against `docs/openapi.yaml`'s table (both ways), the
/// codes of other targets that reach clients under their own names, the byte path's spelled-out errors, and
/// `ErrorAnswer`, which renders every router error from it.
@Suite("The table of error codes")
struct ErrorTableTests {
    @Test func theDocumentListsEveryCodeOfTheServerWithItsStatusAndMeaning() throws {
        let rows = try OpenAPIDocument().errorRows()
        let documented = Dictionary(rows.map { ($0.code, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(documented.count == rows.count, "a code is listed twice in docs/openapi.yaml")
        for code in ErrorCode.allCases {
            let expected = OpenAPIDocument.ErrorRow(code: code.rawValue, status: code.status, meaning: code.meaning)
            #expect(documented[code.rawValue] == expected, "docs/openapi.yaml's x-error-codes must list \(expected)")
        }
    }

    @Test func theServerKnowsEveryCodeTheDocumentLists() throws {
        let rows = try OpenAPIDocument().errorRows()
        #expect(!rows.isEmpty)
        for row in rows {
            let code = ErrorCode(rawValue: row.code)
            #expect(code != nil, "docs/openapi.yaml lists \(row.code), which ErrorCode lacks")
            #expect(code?.status == row.status, "\(row.code): the document says \(row.status), the server \(code?.status ?? 0)")
        }
    }

    @Test func everyStatusIsAnErrorStatus() {
        for code in ErrorCode.allCases {
            #expect((400..<600).contains(code.status), "\(code.rawValue)")
            #expect(!code.meaning.isEmpty, "\(code.rawValue)")
        }
    }

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

    /// The byte path answers a refused grant 403 under the grant error's own code.
    @Test(arguments: [GrantError.Code.malformed, .unknownKey, .badSignature, .expired, .wrongBundle, .badKey])
    func grantCodesAreRowsOfTheTableWithTheBytePathsStatus(code: GrantError.Code) throws {
        let row = try #require(ErrorCode(rawValue: code.description), "ErrorCode lacks \(code)")
        #expect(row.status == 403)
        #expect(ErrorCode(grant: code) == row)
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

    @Test func anAnswerCarriesTheJSONBodyAndCachingFields() throws {
        let answer = ErrorAnswer(DepotError(.uploadNotFound, "no such \"upload\"\n"))
        #expect(answer.status == 404)
        #expect(answer.body == #"{"error":{"code":"upload-not-found","message":"no such \"upload\"\n"}}"#)
        let fields = Dictionary(answer.fields.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        #expect(
            fields == [
                "Content-Type": "application/json", "Content-Length": String(answer.body.utf8.count), "Cache-Control": "no-store",
            ])
        let decoded = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: [String: String]]
        #expect(decoded?["error"]?["message"] == "no such \"upload\"\n")
    }

    @Test func aHeadAnswerHasTheFieldsAndNoBody() {
        let get = ErrorAnswer(DepotError(.grantRequired, "send a grant"))
        let head = ErrorAnswer(DepotError(.grantRequired, "send a grant"), isHead: true)
        #expect(head.body.isEmpty)
        #expect(head.fields.map(\.name) == get.fields.map(\.name))
        #expect(head.fields.map(\.value) == get.fields.map(\.value))
    }

    /// Every 503 tells when to come back; a 429 says its own wait, never less than a second.
    @Test func retryAfterComesFromTheErrorOrTheCode() {
        for code in ErrorCode.allCases where code.status == 503 {
            let answer = ErrorAnswer(DepotError(code, "later"))
            #expect(answer.fields.first { $0.name == "Retry-After" }?.value == "5", "\(code.rawValue)")
        }
        let limited = ErrorAnswer(DepotError(.restoreRateLimited, "later", retryAfterSeconds: 42))
        #expect(limited.fields.first { $0.name == "Retry-After" }?.value == "42")
        let now = ErrorAnswer(DepotError(.irregularActivity, "later", retryAfterSeconds: 0))
        #expect(now.fields.first { $0.name == "Retry-After" }?.value == "1")
        let none = ErrorAnswer(DepotError(.badRequest, "no"))
        #expect(!none.fields.contains { $0.name == "Retry-After" })
    }

    /// A refused connection is answered before any decoder, from the same table and renderer.
    @Test(arguments: [
        (ConnectionGate.Admission.overPerAddress, "429 Too Many Requests", "too-many-connections-from-address"),
        (.overTotal, "503 Service Unavailable", "too-many-connections"),
    ])
    func connectionRefusalsAreRenderedFromTheTable(admission: ConnectionGate.Admission, statusLine: String, code: String) throws {
        let text = String(decoding: ConnectionRefusalHandler.answer(for: admission, now: 1_790_000_000), as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        try #require(parts.count == 2, "\(text)")
        let lines = parts[0].components(separatedBy: "\r\n")
        #expect(lines[0] == "HTTP/1.1 " + statusLine)
        for field in [
            "Content-Type: application/json", "Cache-Control: no-store", "Retry-After: 5", "Connection: close",
            "Content-Length: \(parts[1].utf8.count)",
        ] {
            #expect(lines.contains(field), "\(field) in \(text)")
        }
        let body = try JSONSerialization.jsonObject(with: Data(parts[1].utf8)) as? [String: [String: String]]
        #expect(body?["error"]?["code"] == code)
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

import DepotAPI
import DepotTestSupport
import Foundation
import Testing

/// `ErrorCode`, the server's one table of error codes, against `docs/openapi.yaml`'s table (both ways), and
/// `ErrorAnswer`, which renders every error answer from it.
@Suite("The table of error codes")
struct ErrorCodeTableTests {
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

    /// Codes are what clients branch on: lower-case words joined by hyphens, each its own.
    @Test func everyCodeIsAStableLowerCaseName() {
        let name = /[a-z0-9]+(-[a-z0-9]+)*/
        for code in ErrorCode.allCases {
            #expect(code.rawValue.wholeMatch(of: name) != nil, "\(code.rawValue)")
            #expect(ErrorCode(rawValue: code.rawValue) == code)
        }
        #expect(Set(ErrorCode.allCases.map(\.meaning)).count == ErrorCode.allCases.count, "two codes share a meaning")
    }

    /// The body an answer carries is the public `ErrorBody`, the request's id included when given.
    @Test func theBodyDecodesAsTheClientsErrorBody() throws {
        let error = DepotError(.grantExpired, "the grant expired\u{1}\t")
        let plain = try JSONDecoder().decode(ErrorBody.self, from: Data(ErrorAnswer(error).body.utf8))
        #expect(plain == ErrorBody(error: .init(code: "grant-expired", message: "the grant expired\u{1}\t")))
        let named = ErrorAnswer(error, requestId: "req-\"7\"")
        let decoded = try JSONDecoder().decode(ErrorBody.self, from: Data(named.body.utf8))
        #expect(decoded.error.requestId == "req-\"7\"")
        #expect(named.fields.first { $0.name == "Content-Length" }?.value == String(named.body.utf8.count))
    }

    @Test func anAnswerKeepsTheCacheControlItIsGiven() {
        let answer = ErrorAnswer(DepotError.notFound("gone"), cacheControl: "public, max-age=60")
        #expect(answer.status == 404)
        #expect(answer.fields.first { $0.name == "Cache-Control" }?.value == "public, max-age=60")
    }
}

@testable import DepotServerTestSupport
import DepotAPI
import DepotCore
import DepotLedger
@testable import DepotOrigin
import HTTPTypes
import NIOHTTP1
import Testing

@testable import DepotServer
@testable import DepotServices

/// The tus 1.0 rules, row by row, without a socket: versions, creation, PATCH preconditions, metadata,
/// checksums, and which requests' deadlines run on progress.
@Suite("tus rules")
struct UploadRulesTests {
    static let now: Int64 = 1_000_000
    static let maxSize: Int64 = 1000

    static func record(length: Int64? = 500, offset: Int64 = 100, expiresAt: Int64 = now + 60) -> UploadRecord {
        UploadRecord(
            id: "0123456789abcdef0123456789abcdef", publisher: "operator", length: length, offset: offset, metadata: "",
            createdAt: now - 10, expiresAt: expiresAt)
    }

    @Test(
        arguments: [
            (HTTPRequest.Method.patch, "1.0.0", nil),
            (.post, " 1.0.0 ", nil),
            (.head, "0.2.2", 412),
            (.delete, nil, 412),
            (.patch, "1.0", 412),
            (.options, nil, nil),
            (.options, "0.1", nil),
        ] as [(HTTPRequest.Method, String?, Int?)])
    func versions(method: HTTPRequest.Method, header: String?, expected: Int?) {
        #expect(status(of: { () throws(UploadError) in try UploadRules.checkVersion(method: method, tusResumable: header) }) == expected)
    }

    @Test(
        arguments: [
            ("100", nil, nil, 201),
            ("0", nil, nil, 201),
            ("1000", nil, "name cGFjay56aXA=,type", 201),
            ("1001", nil, nil, 413),
            ("99999999999999999999", nil, nil, 400),
            ("-1", nil, nil, 400),
            ("1e3", nil, nil, 400),
            ("", nil, nil, 400),
            (nil, "1", nil, 201),
            (nil, "0", nil, 400),
            (nil, "true", nil, 400),
            ("10", "1", nil, 400),
            (nil, nil, nil, 400),
            ("10", nil, "name !!!", 400),
            ("10", nil, "a YQ==,a Yg==", 400),
        ] as [(String?, String?, String?, Int)])
    func creation(length: String?, deferred: String?, metadata: String?, expected: Int) {
        let result = status(of: { () throws(UploadError) in
            _ = try UploadRules.creation(uploadLength: length, deferLength: deferred, metadata: metadata, maxSize: Self.maxSize)
        })
        #expect((result ?? 201) == expected)
    }

    @Test func creationKeepsLengthAndMetadata() throws {
        let creation = try UploadRules.creation(
            uploadLength: "42", deferLength: nil, metadata: " filename cGFjay56aXA= ", maxSize: Self.maxSize)
        #expect(creation == UploadRules.Creation(length: 42, metadata: "filename cGFjay56aXA="))
        #expect(try UploadRules.creation(uploadLength: nil, deferLength: "1", metadata: nil, maxSize: 1).length == nil)
    }

    struct PatchRow: Sendable, CustomTestStringConvertible {
        var name: String
        var record: UploadRecord?
        var contentType: String? = "application/offset+octet-stream"
        var offset: String? = "100"
        var length: String? = nil
        var contentLength: Int64? = 10
        var expected: Result

        enum Result: Equatable, Sendable {
            case write(UploadRules.Write)
            case status(Int)
        }

        var testDescription: String { name }
    }

    static let patchRows: [PatchRow] = [
        PatchRow(name: "in order", record: record(), expected: .write(.init(start: 100, setLength: nil, limit: 400))),
        PatchRow(name: "unknown", record: nil, expected: .status(404)),
        PatchRow(name: "expired", record: record(expiresAt: now), expected: .status(410)),
        PatchRow(name: "no content type", record: record(), contentType: nil, expected: .status(415)),
        PatchRow(name: "octet-stream", record: record(), contentType: "application/octet-stream", expected: .status(415)),
        PatchRow(
            name: "type with parameters and case", record: record(), contentType: "Application/Offset+Octet-Stream; x=1",
            expected: .write(.init(start: 100, setLength: nil, limit: 400))),
        PatchRow(
            name: "empty media type before the parameters", record: record(),
            contentType: ";application/offset+octet-stream", expected: .status(415)),
        PatchRow(name: "no offset", record: record(), offset: nil, expected: .status(400)),
        PatchRow(name: "bad offset", record: record(), offset: "abc", expected: .status(400)),
        PatchRow(name: "offset behind", record: record(), offset: "99", expected: .status(409)),
        PatchRow(name: "offset ahead", record: record(), offset: "101", expected: .status(409)),
        PatchRow(name: "body past the length", record: record(), contentLength: 401, expected: .status(413)),
        PatchRow(
            name: "body to the length", record: record(), contentLength: 400,
            expected: .write(.init(start: 100, setLength: nil, limit: 400))),
        PatchRow(name: "complete upload", record: record(length: 100), contentLength: 1, expected: .status(409)),
        PatchRow(
            name: "complete upload, empty body", record: record(length: 100), contentLength: 0,
            expected: .write(.init(start: 100, setLength: nil, limit: 0))),
        PatchRow(name: "other length", record: record(), length: "600", expected: .status(400)),
        PatchRow(
            name: "same length", record: record(), length: "500", expected: .write(.init(start: 100, setLength: nil, limit: 400))),
        PatchRow(
            name: "deferred, no length yet", record: record(length: nil), contentLength: nil,
            expected: .write(.init(start: 100, setLength: nil, limit: 900))),
        PatchRow(
            name: "deferred, length given", record: record(length: nil), length: "300",
            expected: .write(.init(start: 100, setLength: 300, limit: 200))),
        PatchRow(name: "deferred, length below offset", record: record(length: nil), length: "99", expected: .status(400)),
        PatchRow(name: "deferred, length past max", record: record(length: nil), length: "1001", expected: .status(413)),
        PatchRow(name: "deferred, body past max", record: record(length: nil), contentLength: 901, expected: .status(413)),
    ]

    @Test(arguments: patchRows)
    func patch(row: PatchRow) {
        do {
            let write = try UploadRules.patch(
                row.record, now: Self.now, contentType: row.contentType, uploadOffset: row.offset, uploadLength: row.length,
                contentLength: row.contentLength, maxSize: Self.maxSize)
            #expect(PatchRow.Result.write(write) == row.expected)
        } catch {
            #expect(PatchRow.Result.status(DepotError(error).status) == row.expected, "\(error)")
        }
    }

    @Test(
        arguments: [
            ("", []),
            ("filename cGFjay56aXA=", [("filename", "pack.zip")]),
            ("filename cGFjay56aXA=,is_confidential", [("filename", "pack.zip"), ("is_confidential", nil)]),
            ("a YQ==, b Yg== ,c", [("a", "a"), ("b", "b"), ("c", nil)]),
            ("x 8J+Ygw==", [("x", "😃")]),
        ] as [(String, [(String, String?)])])
    func metadataAccepted(header: String, pairs: [(String, String?)]) throws {
        let metadata = try UploadMetadata(header: header)
        #expect(metadata.pairs.map(\.key) == pairs.map(\.0))
        for (key, value) in pairs { #expect(metadata.text(key) == value) }
    }

    @Test(arguments: [
        "a YQ==,a Yg==",  // duplicate key
        "a YQ==,a",  // duplicate key without value
        "a YQ",  // padding missing
        "a Y===",  // bad padding
        "a YQ==x",  // trailing garbage
        "a Y Q==",  // two spaces
        "a  YQ==",  // empty value between spaces
        "a YQ==,",  // empty pair
        ",a YQ==",  // empty pair
        "ключ YQ==",  // non-ASCII key
        "a YR==",  // non-canonical base64 (stray bits)
        "a ?w==",  // not base64
    ])
    func metadataRefused(header: String) {
        #expect(status(of: { () throws(UploadError) in _ = try UploadMetadata(header: header) }) == 400, "\(header)")
    }

    @Test(
        arguments: [
            ("sha1 2jmj7l5rSw0yVb/vlWAYkK/YBwk=", nil),
            ("sha256 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", nil),
            ("SHA256 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", nil),
            ("md5 1B2M2Y8AsgTpgAmY7PhCfg==", 400),
            ("sha1 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", 400),
            ("sha256", 400),
            ("sha256 !!!", 400),
            ("", 400),
        ] as [(String, Int?)])
    func checksumHeaders(header: String, expected: Int?) {
        #expect(status(of: { () throws(UploadError) in _ = try UploadChecksum(header: header) }) == expected)
    }

    @Test(
        arguments: [
            (HTTPMethod.PATCH, "/v1/publisher/uploads/0123", RequestDeadline.Policy.progress),
            (.POST, "/v1/publisher/uploads", .progress),
            (.POST, "/v1/publisher/uploads?x=1", .progress),
            (.PATCH, "http://depot.example/v1/publisher/uploads/ab", .progress),
            (.HEAD, "/v1/publisher/uploads/ab", .wholeRequest),
            (.GET, "/v1/publisher/uploads/ab", .wholeRequest),
            (.POST, "/v1/publisher/uploadsX", .wholeRequest),
            (.POST, "/v1/transactions", .wholeRequest),
            (.PATCH, "/v1/bundles/abc", .wholeRequest),
        ] as [(HTTPMethod, String, RequestDeadline.Policy)])
    func deadlinePolicy(method: HTTPMethod, uri: String, policy: RequestDeadline.Policy) {
        #expect(RequestDeadline.policy(method: method, uri: uri) == policy)
    }

    private func status(of body: () throws(UploadError) -> Void) -> Int? {
        do {
            try body()
            return nil
        } catch {
            return DepotError(error).status
        }
    }
}

import DepotAPI
import DepotTrust
import Foundation
import Testing

@testable import DepotOrigin

/// The byte path's errors in `ErrorCode`'s table: a refused grant under the grant error's own code, and a refused
/// connection rendered from the table before any decoder.
@Suite("Error codes of the byte path")
struct OriginErrorCodesTests {
    /// The byte path answers a refused grant 403 under the grant error's own code.
    @Test(arguments: [GrantError.Code.malformed, .unknownKey, .badSignature, .expired, .wrongBundle, .badKey])
    func grantCodesAreRowsOfTheTableWithTheBytePathsStatus(code: GrantError.Code) throws {
        let row = try #require(ErrorCode(rawValue: code.description), "ErrorCode lacks \(code)")
        #expect(row.status == 403)
        #expect(ErrorCode(grant: code) == row)
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
}

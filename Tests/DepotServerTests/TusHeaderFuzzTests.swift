@testable import DepotServerTestSupport
import DepotAPI
import DepotCore
import DepotLedger
import DepotTestSupport
import Foundation
import Testing

@testable import DepotServer
@testable import DepotServices

/// The tus header parsers (`Upload-Metadata`, `Upload-Checksum`, `Upload-Length`, `Upload-Offset`) fed
/// generated hostile values from a fixed seed: each value is accepted or refused with a 4xx `DepotError`,
/// never a trap, a 5xx or an untyped error.
@Suite struct TusHeaderFuzzTests {
    /// Values drawn from `SeededBytes`, so the same ones run every time.
    struct Values {
        var random: SeededBytes
        init(seed: UInt64) { random = SeededBytes(seed: seed) }
        mutating func next() -> Int { Int(truncatingIfNeeded: random.next() >> 1) }

        /// A value made of pieces tus headers are made of, and of things they must refuse.
        mutating func value() -> String {
            let pieces = [
                "filename", " ", ",", "d29ybGQ=", "=", "==", "sha1", "sha256", "md5", "-1", "0", "18446744073709551616",
                "9223372036854775807", "+5", " 12", "\u{0}", "\u{7F}", "é", "key", "key key", ",,", "a b c",
                "!!notbase64", String(repeating: "A", count: 5000), "1e3", "0x10",
            ]
            return (0..<(1 + next() % 6)).map { _ in pieces[next() % pieces.count] }.joined()
        }
    }

    static func check(_ body: () throws(UploadError) -> Void) {
        do {
            try body()
        } catch {
            #expect((400..<500).contains(DepotError(error).status), "\(error)")
        }
    }

    @Test func generatedHeaderValuesAreAcceptedOrRefusedWithA4xx() {
        var values = Values(seed: 2026)
        let record = UploadRecord(
            id: String(repeating: "a", count: 32), publisher: "p", length: 100, offset: 10, metadata: "", createdAt: 0,
            expiresAt: 1_000)
        for _ in 0..<20_000 {
            let value = values.value()
            Self.check { () throws(UploadError) in _ = try UploadMetadata(header: value) }
            Self.check { () throws(UploadError) in _ = try UploadChecksum(header: value) }
            Self.check { () throws(UploadError) in
                _ = try UploadRules.creation(uploadLength: value, deferLength: nil, metadata: nil, maxSize: 1 << 30)
            }
            Self.check { () throws(UploadError) in
                _ = try UploadRules.creation(uploadLength: nil, deferLength: value, metadata: value, maxSize: 1 << 30)
            }
            Self.check { () throws(UploadError) in
                _ = try UploadRules.patch(
                    record, now: 5, contentType: "application/offset+octet-stream", uploadOffset: value, uploadLength: value,
                    contentLength: 5, maxSize: 1 << 30)
            }
        }
    }
}

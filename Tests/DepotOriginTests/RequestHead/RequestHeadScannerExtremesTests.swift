import DepotHTTP
@testable import DepotOrigin
import DepotTestSupport
import Testing

/// The numbers the request head scanner reads itself (`Content-Length`, and `Range: bytes=a-b` on a bundle GET)
/// walked through the extremes and their spellings (`ExtremeNumbers`): 1 to 18 digits are read exactly; anything
/// else leaves the body's framing unknown (NIO's decoder judges it) or the Range field to `RequestConditions`.
@Suite("The request head scanner: numbers at their extremes")
struct RequestHeadScannerExtremesTests {
    static let bundle = "/v1/bundles/" + String(repeating: "ab", count: 32)

    /// The value of 1 to 18 digits, the form the scanner reads; nil for anything else.
    static func scannable(_ spelling: String) -> Int? {
        guard (1...18).contains(spelling.count), let value = ExtremeNumbers.saturatingDigits(spelling) else { return nil }
        return Int(value)
    }

    static func scan(_ lines: [String]) -> RequestHeadScanner.Outcome {
        let bytes = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
        return bytes.withUnsafeBytes { RequestHeadScanner(limits: .defaults, edgeSecretField: nil).scan($0) }
    }

    @Test func contentLengthIsReadOrLeftToTheDecoder() {
        for spelling in ExtremeNumbers.spellings {
            let outcome = Self.scan(["POST /v1/transactions HTTP/1.1", "Host: depot", "Content-Length: \(spelling)"])
            guard case .head(_, let body, let bundle) = outcome else {
                Issue.record("Content-Length: \(spelling): \(outcome)")
                continue
            }
            #expect(bundle == nil)
            switch Self.scannable(spelling) {
            case 0?: #expect(body == RequestHeadScanner.BodyFraming.none, "Content-Length: \(spelling)")
            case let value?: #expect(body == .length(value), "Content-Length: \(spelling)")
            case nil: #expect(body == .unknown, "Content-Length: \(spelling)")
            }
        }
    }

    @Test(arguments: ["bytes=X-X", "bytes=0-X", "bytes=X-", "bytes=-X", "bytes=X-99"])
    func aBundleRangeIsReadOrLeftToTheConditions(template: String) {
        for spelling in ExtremeNumbers.spellings {
            let value = template.split(separator: "X", omittingEmptySubsequences: false).joined(separator: spelling)
            let outcome = Self.scan(["GET \(Self.bundle) HTTP/1.1", "Host: depot", "Range: \(value)"])
            guard case .head(_, RequestHeadScanner.BodyFraming.none, let request?) = outcome else {
                Issue.record("Range: \(value): \(outcome)")
                continue
            }
            let numbers = value.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            if numbers.count == 2, let first = Self.scannable(numbers[0]), let last = Self.scannable(numbers[1]), first <= last {
                #expect(request.plainRange == ByteRange(first: Int64(first), last: Int64(last)), "Range: \(value)")
                #expect(request.conditions == nil)
            } else {
                #expect(request.plainRange == nil, "Range: \(value)")
                #expect(request.conditions?.range == [value], "Range: \(value)")
            }
        }
    }
}

import DepotTestSupport
import Foundation
import Testing

@testable import DepotClient

/// The numbers DepotClient takes from a server (a 206's `Content-Range`, an offer's `size`) walked through the
/// extremes and their spellings (`ExtremeNumbers`): each is read exactly or refused with a typed error, and the
/// progress arithmetic built on them never traps.
@Suite("DepotClient: a server's numbers at their extremes")
struct NumericExtremesTests {
    /// `Content-Range` templates: `X` is replaced by each spelling, in each numeric position.
    static let templates = ["bytes X-99/100", "bytes 0-X/100", "bytes 0-0/X", "bytes X-X/X", "bytes X-X/*", "bytes 5-X/*"]

    /// What the field must parse to: positions of 1 to 18 digits (RFC 9110 §14.4's `1*DIGIT`, bounded so
    /// that no sum of them overflows), `first <= last < complete`; nil for anything else.
    static func expected(_ template: String, _ spelling: String) -> ContentRange? {
        guard spelling.count <= 18, let number = ExtremeNumbers.saturatingDigits(spelling) else { return nil }
        let range: ContentRange
        switch template {
        case "bytes X-99/100": range = ContentRange(first: number, last: 99, complete: 100)
        case "bytes 0-X/100": range = ContentRange(first: 0, last: number, complete: 100)
        case "bytes 0-0/X": range = ContentRange(first: 0, last: 0, complete: number)
        case "bytes X-X/X": range = ContentRange(first: number, last: number, complete: number)
        case "bytes X-X/*": range = ContentRange(first: number, last: number, complete: nil)
        default: range = ContentRange(first: 5, last: number, complete: nil)
        }
        guard range.first <= range.last, range.complete.map({ range.last < $0 }) ?? true else { return nil }
        return range
    }

    @Test(arguments: templates)
    func contentRangePositionsAreReadOrRefused(template: String) {
        var accepted = 0
        for spelling in ExtremeNumbers.spellings {
            let field = template.split(separator: "X", omittingEmptySubsequences: false).joined(separator: spelling)
            let expected = Self.expected(template, spelling)
            #expect(ContentRange(field) == expected, "\(field)")
            if expected != nil { accepted += 1 }
        }
        #expect(template == "bytes X-X/X" || accepted > 0, "some plausible value is read")
    }

    /// An offer's `size` from the redeem answer: from 0 to `Int64.max` it is read exactly; below zero, past
    /// `Int64.max` or not an integer, the answer is refused as `bad-response`.
    @Test func anOffersSizeIsReadOrRefused() throws {
        for spelling in ExtremeNumbers.values + ["1e3", "1.5", "-0", "\"5\""] {
            let body = """
                {"transaction": {"id": "1", "originalId": "1", "productId": "p", "state": "pending"},
                 "downloads": [{"contentId": "c", "version": "1", "size": \(spelling), "digest": "d", "url": "/b",
                                "grantExpiresAt": "2030-01-01T00:00:00Z"}]}
                """
            let result = Result { () throws(DepotClientError) in
                try DepotClient.decode(Redemption.self, from: Data(body.utf8), doing: "POST /v1/transactions")
            }
            switch result {
            case .success(let redemption):
                let size = try #require(redemption.downloads.first?.size)
                #expect(size >= 0, "\(spelling)")
                #expect(ExtremeNumbers.int64(spelling) == size || spelling == "-0" || spelling == "1e3", "\(spelling)")
            case .failure(let error):
                #expect(error.code == .badResponse, "\(spelling)")
                let value = ExtremeNumbers.int64(spelling)
                #expect(value == nil || value! < 0, "\(spelling) is a size a bundle may have")
            }
        }
    }

    /// The time left at any rate towards any size: a number of seconds a display can hold, or unknown.
    @Test func timeRemainingStaysFiniteAndBounded() {
        let sizes: [Int64] = [0, 1, 100, Int64(Int32.max), Int64.max - 1, Int64.max]
        let paces: [(Int64, Double)] = [(1, 1), (1, 5), (1000, 0.1), (Int64(Int32.max), 0.1), (0, 1)]
        for size in sizes {
            for (bytes, seconds) in paces {
                var estimator = RateEstimator(window: 5)
                estimator.record(bytes: 0, at: 0)
                estimator.record(bytes: bytes, at: seconds)
                guard let left = estimator.timeRemaining(expected: size) else { continue }
                #expect(left.isFinite && left >= 0 && left <= RateEstimator.longestRemaining, "\(size) at \(bytes)/\(seconds)s")
                #expect(Int(exactly: left.rounded(.up)) != nil)
            }
        }
        var estimator = RateEstimator(window: 5)
        estimator.record(bytes: 0, at: 0)
        estimator.record(bytes: 1, at: 2)
        #expect(estimator.timeRemaining(expected: Int64.max) == nil, "a size no transfer reaches: unknown")
        #expect(estimator.timeRemaining(expected: 101) == 200)
    }
}

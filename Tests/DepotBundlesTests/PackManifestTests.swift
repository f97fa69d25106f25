import DepotCore
import Testing

@testable import DepotBundles

@Suite struct PackManifestTests {
    @Test func parsesAllFields() throws {
        let manifest = try PackManifest.parse(
            json: Array(
                #"""
                {"productId": "com.example.magazine", "version": "2.1", "contentId": "com.example.magazine.2026-09",
                 "publishedAt": "2026-03-01T09:00:00Z", "title": "September & <more>", "extra": [1, 2]}
                """#.utf8))
        #expect(manifest.productId == "com.example.magazine")
        #expect(manifest.contentId == "com.example.magazine.2026-09")
        #expect(manifest.version == "2.1")
        #expect(manifest.publishedAt == 1_772_355_600)
        #expect(manifest.title == "September & <more>")
    }

    @Test func contentIdDefaultsToProductId() throws {
        let manifest = try PackManifest.parse(json: Array(PackFixture.manifest.utf8))
        #expect(manifest.contentId == "com.example.game.level1")
    }

    @Test(arguments: [
        ("not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        (#"{"version": "1", "publishedAt": "2026-03-01T09:00:00Z"}"#, "missing \"productId\""),
        (#"{"productId": "p", "publishedAt": "2026-03-01T09:00:00Z"}"#, "missing \"version\""),
        (#"{"productId": "p", "version": "1"}"#, "missing \"publishedAt\""),
        (#"{"productId": 7, "version": "1", "publishedAt": "2026-03-01T09:00:00Z"}"#, "\"productId\" must be a string"),
        (#"{"productId": "", "version": "1", "publishedAt": "2026-03-01T09:00:00Z"}"#, "\"productId\" must be 1-128"),
        (#"{"productId": "p\u0001", "version": "1", "publishedAt": "2026-03-01T09:00:00Z"}"#, "\"productId\" must be 1-128"),
        (#"{"productId": "p", "version": "1\u0001", "publishedAt": "2026-03-01T09:00:00Z"}"#, "control characters"),
        // Product and content ids follow the identifier rule: no path, space, dot name or non-ASCII letter.
        (#"{"productId": "..", "version": "1", "publishedAt": "2026-03-01T09:00:00Z"}"#, "\"productId\" must be 1-128"),
        (#"{"productId": "a/b", "version": "1", "publishedAt": "2026-03-01T09:00:00Z"}"#, "\"productId\" must be 1-128"),
        (
            #"{"productId": "p", "contentId": "../x y/Contents", "version": "1", "publishedAt": "2026-03-01T09:00:00Z"}"#,
            "\"contentId\" must be 1-128"
        ),
        (#"{"productId": "p", "contentId": ".hidden", "version": "1", "publishedAt": "2026-03-01T09:00:00Z"}"#, "\"contentId\""),
        (#"{"productId": "p", "contentId": ".", "version": "1", "publishedAt": "2026-03-01T09:00:00Z"}"#, "\"contentId\""),
        (#"{"productId": "p", "contentId": "caf\u00e9", "version": "1", "publishedAt": "2026-03-01T09:00:00Z"}"#, "\"contentId\""),
        (#"{"productId": "p", "contentId": "", "version": "1", "publishedAt": "2026-03-01T09:00:00Z"}"#, "\"contentId\""),
        // Nor does a version start with '.': `.` and `..` cannot be named in a URL.
        (#"{"productId": "p", "version": "..", "publishedAt": "2026-03-01T09:00:00Z"}"#, "\"version\" must not start"),
        (#"{"productId": "p", "version": ".", "publishedAt": "2026-03-01T09:00:00Z"}"#, "\"version\" must not start"),
        (#"{"productId": "p", "version": "1", "publishedAt": "2026-02-30T09:00:00Z"}"#, "\"publishedAt\""),
        (#"{"productId": "p", "version": "1", "publishedAt": "2026-03-01 09:00:00"}"#, "\"publishedAt\""),
        (#"{"productId": "p", "version": "1", "publishedAt": "2026-03-01T09:00:00+01:00"}"#, "\"publishedAt\""),
        (#"{"productId": "p", "version": "1", "publishedAt": 1772355600}"#, "\"publishedAt\" must be a string"),
        (#"{"productId": "p", "version": "1", "publishedAt": "2026-03-01T09:00:00Z", "title": 3}"#, "\"title\""),
    ])
    func refusesBadManifests(json: String, fragment: String) {
        #expect {
            try PackManifest.parse(json: Array(json.utf8))
        } throws: { error in
            let error = error as? PackError
            return error?.code == .badManifest && error?.message.contains(fragment) == true
        }
    }

    @Test(
        arguments: [
            ("1970-01-01T00:00:00Z", 0),
            ("1969-12-31T23:59:59Z", -1),
            ("2000-02-29T23:59:59Z", 951_868_799),
            ("2026-03-01T09:00:00Z", 1_772_355_600),
            ("2026-03-01T09:00:00.999Z", 1_772_355_600),
            ("2026-03-01t09:00:00+00:00", 1_772_355_600),
        ] as [(String, Int64)])
    func parsesTimestamps(text: String, seconds: Int64) {
        #expect(UTCTimestamp.parse(text) == seconds)
    }

    @Test(arguments: [
        "", "2026-03-01", "2026-13-01T00:00:00Z", "2025-02-29T00:00:00Z", "2026-03-01T24:00:00Z",
        "2026-03-01T09:00:60Z", "2026-03-01T09:00:00", "2026-03-01T09:00:00.Z", "2026-03-01T09:00:00ZZ",
        "+2026-03-01T09:00:00Z",
    ])
    func refusesBadTimestamps(text: String) {
        #expect(UTCTimestamp.parse(text) == nil)
    }

    @Test(arguments: [Int64(0), -1, 951_868_799, 1_772_355_600, 4_102_444_800, -62_135_596_800])
    func formatsTimestampsRoundTrip(seconds: Int64) {
        #expect(UTCTimestamp.parse(UTCTimestamp.format(seconds)) == seconds)
    }

    @Test func formatsKnownTimestamp() {
        #expect(UTCTimestamp.format(1_772_355_600) == "2026-03-01T09:00:00Z")
        #expect(UTCTimestamp.format(-1) == "1969-12-31T23:59:59Z")
    }
}

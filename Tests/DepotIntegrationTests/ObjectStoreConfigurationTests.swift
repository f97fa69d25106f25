@testable import DepotServerTestSupport
import DepotObjectStore
import DepotSettings
import DepotTestSupport
import Testing

/// `storage.objectStore` in `depot.json`: off without it, read with it (keys from the file or the environment), and
/// each fault refused by the setting's name.
@Suite("Configuration: object store")
struct ObjectStoreConfigurationTests {
    static func section(_ members: String) -> String {
        "\"storage\": {\"objectStore\": {\(members)}}"
    }

    static let complete =
        #""endpoint": "http://127.0.0.1:7480", "region": "default", "bucket": "depot", "accessKeyId": "AK", "secretAccessKey": "SK""#

    @Test func withoutTheSectionBundlesStayInTheDataDirectory() throws {
        #expect(try LiveServer.loadConfiguration("").objectStore == nil)
    }

    @Test func theSectionIsRead() throws {
        let settings = try #require(
            try LiveServer.loadConfiguration(Self.section(Self.complete + #", "prefix": "studio/depot", "pathStyle": false"#))
                .objectStore)
        #expect(settings.endpoint == "http://127.0.0.1:7480")
        #expect(settings.bucket == "depot" && settings.region == "default")
        #expect(settings.prefix == "studio/depot/")
        #expect(!settings.pathStyle)
        #expect(settings.credentials == SigV4Credentials(accessKeyId: "AK", secretAccessKey: "SK"))
    }

    @Test func theLocalCacheBudgetNeedsABucketAndAtLeastOneMebibyte() throws {
        #expect(try LiveServer.loadConfiguration(Self.section(Self.complete)).localCacheBytes == nil)
        let bounded = "\"storage\": {\"objectStore\": {\(Self.complete)}, \"localCacheBytes\": 10737418240}"
        #expect(try LiveServer.loadConfiguration(bounded).localCacheBytes == 10_737_418_240)
        let alone = LiveServer.configurationRefusal("\"storage\": {\"localCacheBytes\": 10737418240}")
        #expect(alone?.contains("storage.localCacheBytes needs storage.objectStore") == true, "\(alone ?? "nil")")
        let tiny = LiveServer.configurationRefusal("\"storage\": {\"objectStore\": {\(Self.complete)}, \"localCacheBytes\": 4096}")
        #expect(tiny?.contains("storage.localCacheBytes") == true, "\(tiny ?? "nil")")
    }

    @Test func theKeysMayComeFromTheEnvironment() throws {
        let section = Self.section(#""endpoint": "http://127.0.0.1:7480", "region": "default", "bucket": "depot""#)
        let settings = try #require(
            try LiveServer.loadConfiguration(
                section, environment: ["DEPOT_S3_ACCESS_KEY_ID": "ENVAK", "DEPOT_S3_SECRET_ACCESS_KEY": "ENVSK"]
            ).objectStore)
        #expect(settings.credentials == SigV4Credentials(accessKeyId: "ENVAK", secretAccessKey: "ENVSK"))
        #expect(LiveServer.configurationRefusal(section)?.contains("DEPOT_S3_ACCESS_KEY_ID") == true)
    }

    @Test func faultsAreRefusedByName() {
        let cases: [(String, String)] = [
            (
                #""region": "default", "bucket": "depot", "accessKeyId": "AK", "secretAccessKey": "SK""#,
                "storage.objectStore.endpoint is required"
            ),
            (
                #""endpoint": "http://127.0.0.1:7480", "bucket": "depot", "accessKeyId": "AK", "secretAccessKey": "SK""#,
                "storage.objectStore.region"
            ),
            (
                #""endpoint": "http://127.0.0.1:7480", "region": "default", "accessKeyId": "AK", "secretAccessKey": "SK""#,
                "storage.objectStore.bucket"
            ),
            (
                #""endpoint": "ftp://store", "region": "default", "bucket": "depot", "accessKeyId": "AK", "secretAccessKey": "SK""#,
                "storage.objectStore.endpoint"
            ),
            (
                #""endpoint": "http://store/path", "region": "default", "bucket": "depot", "accessKeyId": "AK", "secretAccessKey": "SK""#,
                "without a path"
            ),
            (Self.complete + #", "prefix": "../up""#, "storage.objectStore.prefix"),
            (Self.complete + #", "prefix": "a b""#, "storage.objectStore.prefix"),
            (Self.complete + #", "timeoutSeconds": 0"#, "storage.objectStore.timeoutSeconds"),
        ]
        for (members, expected) in cases {
            let message = LiveServer.configurationRefusal(Self.section(members))
            #expect(message?.contains(expected) == true, "\(expected): \(message ?? "accepted")")
        }
    }
}

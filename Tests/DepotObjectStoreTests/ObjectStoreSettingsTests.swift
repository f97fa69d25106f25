import AsyncHTTPClient
import NIOHTTP1
import Testing

@testable import DepotObjectStore

@Suite("Object store settings: endpoints, addressing, retries, typed errors")
struct ObjectStoreSettingsTests {
    static func settings(
        endpoint: String = "http://127.0.0.1:7480", pathStyle: Bool = true, prefix: String = ""
    )
        -> ObjectStoreSettings
    {
        ObjectStoreSettings(
            endpoint: endpoint, region: "us-east-1", bucket: "depot", prefix: prefix, pathStyle: pathStyle,
            credentials: SigV4Credentials(accessKeyId: "AK", secretAccessKey: "SK"))
    }

    @Test func endpointsAreSchemeHostAndPort() throws {
        #expect(try ObjectStoreEndpoint("http://127.0.0.1:7480").authority == "127.0.0.1:7480")
        #expect(try ObjectStoreEndpoint("https://s3.eu-west-1.amazonaws.com/").authority == "s3.eu-west-1.amazonaws.com")
        #expect(try ObjectStoreEndpoint("https://s3.example:443").authority == "s3.example")
        #expect(try ObjectStoreEndpoint("http://minio:80").authority == "minio")
        for bad in ["s3.amazonaws.com", "ftp://x", "http://", "http://host/path", "http://host:0", "http://host:99999", "http://a@b"] {
            #expect(throws: ObjectStoreError.self, "\(bad)") { try ObjectStoreEndpoint(bad) }
        }
    }

    @Test func pathStyleAndVirtualHostedAddressing() throws {
        let path = try ObjectStoreClient(settings: Self.settings(prefix: "depot/"))
        #expect(path.authority == "127.0.0.1:7480")
        #expect(path.encodedPath("bundles/ab cd") == "/depot/depot/bundles/ab%20cd")
        #expect(path.encodedPath(nil) == "/depot")
        let virtual = try ObjectStoreClient(settings: Self.settings(endpoint: "https://s3.amazonaws.com", pathStyle: false))
        #expect(virtual.authority == "depot.s3.amazonaws.com")
        #expect(virtual.encodedPath("k") == "/k")
        #expect(virtual.encodedPath(nil) == "/")
    }

    @Test func aSignedRequestCarriesTheSignedHeaders() throws {
        let client = try ObjectStoreClient(settings: Self.settings(), now: { 1_369_353_600 })
        let request = client.signedRequest(.init(method: .GET, key: "a b", query: [("x", "1 2")]))
        #expect(request.url == "http://127.0.0.1:7480/depot/a%20b?x=1%202")
        #expect(request.headers.first(name: "x-amz-date") == "20130524T000000Z")
        #expect(request.headers.first(name: "Host") == "127.0.0.1:7480")
        let authorization = try #require(request.headers.first(name: "Authorization"))
        #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AK/20130524/us-east-1/s3/aws4_request,"))
        #expect(authorization.contains("SignedHeaders=host;x-amz-content-sha256;x-amz-date,"))
    }

    @Test func unusableSettingsAreRefusedByName() {
        var settings = Self.settings()
        settings.bucket = ""
        #expect(throws: ObjectStoreError.self) { try ObjectStoreClient(settings: settings) }
        settings = Self.settings()
        settings.region = ""
        #expect(throws: ObjectStoreError.self) { try ObjectStoreClient(settings: settings) }
    }

    @Test func retriesWaitLongerEachTimeWithinTheirBounds() {
        let policy = ObjectStoreRetryPolicy(maxAttempts: 5, baseDelaySeconds: 0.2, maxDelaySeconds: 1)
        #expect(policy.delay(afterAttempt: 1, random: 0) == 0.1)
        #expect(policy.delay(afterAttempt: 1, random: 1) == 0.2)
        #expect(policy.delay(afterAttempt: 2, random: 1) == 0.4)
        #expect(policy.delay(afterAttempt: 50, random: 1) == 1)
        #expect(policy.delay(afterAttempt: Int.max, random: 0.5) <= 1)
        #expect(ObjectStoreRetryPolicy(maxAttempts: 0).maxAttempts == 1)
    }

    @Test func errorsSayWhetherAnotherAttemptMayHelp() {
        #expect(ObjectStoreError.transport("reset").isRetryable)
        #expect(ObjectStoreError.service(status: 503, code: "SlowDown", message: "", requestId: nil).isRetryable)
        #expect(ObjectStoreError.service(status: 500, code: "InternalError", message: "", requestId: nil).isRetryable)
        #expect(!ObjectStoreError.service(status: 403, code: "SignatureDoesNotMatch", message: "", requestId: nil).isRetryable)
        #expect(!ObjectStoreError.service(status: 404, code: "NoSuchKey", message: "", requestId: nil).isRetryable)
        #expect(ObjectStoreError.service(status: 404, code: "NoSuchKey", message: "", requestId: nil).isNotFound)
        #expect(ObjectStoreError.code(forStatus: 412) == "PreconditionFailed")
    }

    @Test func listingTimesAreReadWithOrWithoutTheirFraction() {
        #expect(ObjectInfo.seconds(iso8601: "2013-05-24T00:00:00.000Z") == 1_369_353_600)
        #expect(ObjectInfo.seconds(iso8601: "2013-05-24T00:00:01Z") == 1_369_353_601)
        #expect(ObjectInfo.seconds(iso8601: "2013-05-24T00:00:01.999Z") == 1_369_353_601)
        #expect(ObjectInfo.seconds(iso8601: "yesterday") == nil)
        #expect(ObjectInfo.seconds(iso8601: "") == nil)
    }
}

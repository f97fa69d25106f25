import DepotObjectStore
import DepotTestSupport
import Foundation
import Testing

/// The S3-compatible store the object store's live tests use: the one `.ci/s3.sh` starts (Ceph's RADOS Gateway),
/// named by `DEPOT_TEST_S3_ENDPOINT`, `DEPOT_TEST_S3_BUCKET`, `DEPOT_TEST_S3_REGION`, `DEPOT_TEST_S3_ACCESS_KEY_ID`
/// and `DEPOT_TEST_S3_SECRET_ACCESS_KEY`. Each test works under a key prefix of its own.
///
/// Without the variables, a test is skipped with a hint, or fails under CI (`CI` set), where the store is required.
struct TestObjectStore: Sendable {
    /// The settings, with the test's own prefix.
    let settings: ObjectStoreSettings
    /// A `python3` with boto3.
    let python: String

    /// `storage.objectStore` for `depot.json`, pointing at the test store under the test's own prefix.
    static func configurationSection(_ settings: ObjectStoreSettings, localCacheBytes: Int64? = nil) -> String {
        """
        "storage": {"objectStore": {"endpoint": "\(settings.endpoint)", "region": "\(settings.region)",
          "bucket": "\(settings.bucket)", "prefix": "\(settings.prefix)", "pathStyle": true,
          "timeoutSeconds": \(settings.timeoutSeconds),
          "accessKeyId": "\(settings.credentials.accessKeyId)", "secretAccessKey": "\(settings.credentials.secretAccessKey)"}\(
            localCacheBytes.map { ", \"localCacheBytes\": \($0)" } ?? "")}
        """
    }

    /// The store for a test, or nil (skipped, or recorded as a failure in CI) when no store is configured or boto3 is
    /// missing.
    static func make(
        _ test: String = #function, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws
        -> TestObjectStore?
    {
        guard let settings = settings(test, sourceLocation: sourceLocation),
            let python = try await PythonPackage.python(importing: "boto3", package: "boto3", sourceLocation: sourceLocation)
        else { return nil }
        return TestObjectStore(settings: settings, python: python)
    }

    /// The settings for a test, or nil (skipped, or recorded as a failure in CI) when no store is configured.
    private static func settings(_ test: String, sourceLocation: SourceLocation) -> ObjectStoreSettings? {
        let environment = ProcessInfo.processInfo.environment
        let names = ["ENDPOINT", "BUCKET", "ACCESS_KEY_ID", "SECRET_ACCESS_KEY"].map { "DEPOT_TEST_S3_" + $0 }
        guard names.allSatisfy({ environment[$0]?.isEmpty == false }) else {
            let hint = "run `bash .ci/s3.sh` and eval the export line it prints last"
            if environment["CI"] != nil {
                Issue.record(
                    "an object store is required in CI: \(names.joined(separator: ", ")) are not set; \(hint)",
                    sourceLocation: sourceLocation)
            } else {
                print("skipping \(test): no test object store (\(hint))")
            }
            return nil
        }
        let base = test.prefix { $0 != "(" }.filter { $0.isLetter || $0.isNumber }.prefix(40)
        return ObjectStoreSettings(
            endpoint: environment["DEPOT_TEST_S3_ENDPOINT"] ?? "", region: environment["DEPOT_TEST_S3_REGION"] ?? "default",
            bucket: environment["DEPOT_TEST_S3_BUCKET"] ?? "", prefix: "tests/\(base)-\(UInt32.random(in: 0...UInt32.max))/",
            pathStyle: true,
            credentials: SigV4Credentials(
                accessKeyId: environment["DEPOT_TEST_S3_ACCESS_KEY_ID"] ?? "",
                secretAccessKey: environment["DEPOT_TEST_S3_SECRET_ACCESS_KEY"] ?? ""))
    }

    /// Runs a Python snippet with boto3 (an independent S3 client) against the store; `S3`, `BUCKET` and `PREFIX` are
    /// defined for it. Returns what it printed.
    func boto3(_ script: String) async throws -> String {
        let prelude = """
            import boto3, hashlib, sys
            from botocore.config import Config
            S3 = boto3.client('s3', endpoint_url='\(settings.endpoint)', region_name='\(settings.region)',
                aws_access_key_id='\(settings.credentials.accessKeyId)',
                aws_secret_access_key='\(settings.credentials.secretAccessKey)',
                config=Config(s3={'addressing_style': 'path'}, retries={'max_attempts': 3}))
            BUCKET = '\(settings.bucket)'
            PREFIX = '\(settings.prefix)'

            """
        return try await ExternalTool.runSucceeding(python, ["-c", prelude + script]).output
    }

    /// The keys (below the test's prefix) of the bundles the bucket holds, as boto3 lists them.
    func bundleKeys() async throws -> [String] {
        let listed = try await boto3(
            """
            pages = S3.get_paginator('list_objects_v2').paginate(Bucket=BUCKET, Prefix=PREFIX + 'bundles/')
            for page in pages:
                for item in page.get('Contents', []):
                    print(item['Key'][len(PREFIX):])
            """)
        return listed.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// Removes every object under the test's prefix.
    func removeAll() async throws {
        let client = try ObjectStoreClient(settings: settings)
        for object in try await client.listAll() { try await client.delete(object.key) }
    }
}

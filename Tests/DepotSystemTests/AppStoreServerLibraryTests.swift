@testable import DepotServerTestSupport
import DepotAppStoreDouble
import DepotTestSupport
import Foundation
import Testing

/// Apple's own App Store Server Library (the Python one, `app-store-server-library` on PyPI) as a client of
/// the local App Store double: its tokens (no `iat`) are accepted as Apple accepts them, and every endpoint the
/// double serves answers in a shape the library parses, errors included.
@Suite("Apple's App Store Server Library against the App Store double")
struct AppStoreServerLibraryTests {
    /// Calls Get Transaction Info, Finish Transaction, Get Notification History and Send Consumption
    /// Information with the library, then two calls the double refuses; prints what the library parsed as JSON.
    static let script = #"""
        import json, sys, time
        import requests
        # The library gives each call 30 s; the double answers from the test process, which a loaded machine can
        # hold up for longer. No test may assume a speed: every call gets ten minutes.
        _request = requests.request
        requests.request = lambda *args, **kwargs: _request(*args, **{**kwargs, "timeout": 600})
        from appstoreserverlibrary.api_client import APIException, AppStoreServerAPIClient
        from appstoreserverlibrary.models.ConsumptionRequest import ConsumptionRequest
        from appstoreserverlibrary.models.DeliveryStatus import DeliveryStatus
        from appstoreserverlibrary.models.Environment import Environment
        from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest

        key_path, key_id, issuer_id, bundle_id, base, transaction_id = sys.argv[1:7]
        with open(key_path, "rb") as f:
            key = f.read()
        client = AppStoreServerAPIClient(key, key_id, issuer_id, bundle_id, Environment.LOCAL_TESTING)
        client._base_url = base  # the library has no setting for another host; the double stands in for Apple's
        out = {}
        out["signedTransactionInfo"] = client.get_transaction_info(transaction_id).signedTransactionInfo
        client.finish_transaction(transaction_id)
        out["finished"] = True
        now = int(time.time() * 1000)
        history = client.get_notification_history(None, NotificationHistoryRequest(startDate=now - 3600 * 1000, endDate=now + 60 * 1000))
        out["history"] = [item.signedPayload for item in history.notificationHistory]
        out["hasMore"] = history.hasMore
        client.send_consumption_information(transaction_id, ConsumptionRequest(
            customerConsented=True, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED, consumptionPercentage=100000))
        out["consumptionSent"] = True
        errors = []
        for call in (lambda: client.get_transaction_info("99"),
                     lambda: client.send_consumption_information(transaction_id, ConsumptionRequest(
                         customerConsented=False, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED))):
            try:
                call()
                errors.append(None)
            except APIException as e:
                errors.append([e.http_status_code, e.raw_api_error])
        out["errors"] = errors
        print(json.dumps(out))
        """#

    @Test func theLibrarysCallsAreAcceptedAndTheirAnswersParse() async throws {
        guard let python = try await PythonPackage.python(importing: "appstoreserverlibrary", package: "app-store-server-library")
        else { return }
        let scratch = try ScratchDirectory("app-store-server-library")
        defer { scratch.remove() }
        try scratch.write("client.py", Self.script)
        try await AppStoreDoubleFixture.with { appStore in
            let transactionId = "2000000123456789"
            appStore.double.holdTransaction(transactionId, signedTransactionInfo: "eyJhbGciOiJFUzI1NiJ9.eyJ0cmFuc2FjdGlvbklkIjoiMiJ9.c2ln")
            appStore.double.holdNotification(
                "eyJhbGciOiJFUzI1NiJ9.eyJub3RpZmljYXRpb25UeXBlIjoiUkVGVU5EIn0.c2ln",
                sentAt: Int64(Date().timeIntervalSince1970 * 1000) - 60_000)
            let result = try await ExternalTool.run(
                python,
                [
                    scratch.path + "/client.py", appStore.key.privateKeyPath, appStore.key.keyId, appStore.key.issuerId,
                    AppStoreDoubleFixture.bundleId, appStore.base, transactionId,
                ])
            #expect(result.status == 0, "\(result.error)")
            let line = try #require(result.output.split(separator: "\n").last.map(String.init), "\(result.error)")
            let answer = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            #expect(answer["signedTransactionInfo"] as? String == "eyJhbGciOiJFUzI1NiJ9.eyJ0cmFuc2FjdGlvbklkIjoiMiJ9.c2ln")
            #expect(answer["finished"] as? Bool == true)
            #expect(answer["history"] as? [String] == ["eyJhbGciOiJFUzI1NiJ9.eyJub3RpZmljYXRpb25UeXBlIjoiUkVGVU5EIn0.c2ln"])
            #expect(answer["hasMore"] as? Bool == false)
            #expect(answer["consumptionSent"] as? Bool == true)
            let errors = try #require(answer["errors"] as? [[Int]], "\(answer)")
            #expect(errors == [[404, 4_040_010], [400, 4_000_035]])

            // Every call reached its endpoint with the library's token accepted.
            let requests = appStore.double.requests
            #expect(requests.allSatisfy { $0.refusal == nil }, "\(requests.compactMap(\.refusal))")
            #expect(
                requests.map { "\($0.method) \($0.path.prefix { $0 != "?" }) \($0.status)" } == [
                    "GET /inApps/v1/transactions/\(transactionId) 200",
                    "POST /inApps/v1/transactions/\(transactionId)/finish 200",
                    "POST /inApps/v1/notifications/history 200",
                    "PUT /inApps/v2/transactions/consumption/\(transactionId) 202",
                    "GET /inApps/v1/transactions/99 404",
                    "PUT /inApps/v2/transactions/consumption/\(transactionId) 400",
                ])
        }
    }
}

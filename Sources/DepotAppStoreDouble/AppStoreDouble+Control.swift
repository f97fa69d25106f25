import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// The double's control routes, for a test or a person (not part of Apple's API):
/// - `POST /_double/fail` `{"count", "status", "retryAfter"}`: the next `count` API calls fail;
/// - `GET /_double/requests`: every API request received; `DELETE /_double/requests` forgets them;
/// - `POST /_double/transactions` `{"transactionId", "signedTransactionInfo"}`: what Get Transaction Info answers;
/// - `POST /_double/notifications` `{"signedPayload", "sentAt"}`: a notification in the history (sent now by default).
/// Bad input is a 400 with `{"error": {"code", "message"}}`.
extension AppStoreDouble {
    func control(_ method: HTTPRequest.Method, path: String, body: ByteBuffer) -> Response {
        switch (method, path) {
        case (.post, "/_double/fail"):
            guard let plan = try? JSONDecoder().decode(FailurePlan.self, from: Data(body.readableBytesView)),
                plan.count >= 0, plan.status == 429 || (500...599).contains(plan.status),
                (plan.retryAfter ?? 0) >= 0
            else {
                return Self.json(
                    .badRequest,
                    #"{"error": {"code": "bad-failure-plan", "message": "send {\"count\": N, \"status\": 429 or 500-599, \"retryAfter\": seconds}"}}"#
                )
            }
            failNext(plan)
            return Self.json(.ok, #"{"failing": \#(plan.count)}"#)
        case (.get, "/_double/requests"):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let data = (try? encoder.encode(requests)) ?? Data("[]".utf8)
            return Self.json(.ok, String(decoding: data, as: UTF8.self))
        case (.delete, "/_double/requests"):
            state.withLockedValue { $0.recorded.removeAll() }
            return Response(status: .noContent)
        case (.post, "/_double/transactions"):
            struct Held: Decodable {
                var transactionId: String
                var signedTransactionInfo: String
            }
            guard let held = try? JSONDecoder().decode(Held.self, from: Data(body.readableBytesView)),
                Self.isTransactionId(held.transactionId), !held.signedTransactionInfo.isEmpty
            else {
                return Self.json(
                    .badRequest,
                    #"{"error": {"code": "bad-transaction", "message": "send {\"transactionId\": digits, \"signedTransactionInfo\": JWS}"}}"#
                )
            }
            holdTransaction(held.transactionId, signedTransactionInfo: held.signedTransactionInfo)
            return Self.json(.ok, #"{"held": \#(AppStoreDoubleSetup.quoted(held.transactionId))}"#)
        case (.post, "/_double/notifications"):
            struct Held: Decodable {
                var signedPayload: String
                var sentAt: Int64?
            }
            guard let held = try? JSONDecoder().decode(Held.self, from: Data(body.readableBytesView)), !held.signedPayload.isEmpty
            else {
                return Self.json(
                    .badRequest,
                    #"{"error": {"code": "bad-notification", "message": "send {\"signedPayload\": JWS, \"sentAt\": milliseconds (default now)}"}}"#
                )
            }
            holdNotification(held.signedPayload, sentAt: held.sentAt ?? clock() * 1000)
            return Self.json(.ok, #"{"held": 1}"#)
        default:
            return Self.json(
                .notFound,
                #"{"error": {"code": "not-found", "message": "the double serves /_double/fail, /_double/requests, /_double/transactions and /_double/notifications"}}"#
            )
        }
    }

}

import DepotCore
import DepotLedger
import DepotServer
import DepotTrust
import Foundation
import Testing

/// The purchase-flow requests and answers the ledger's live tests make and read, over `RawHTTPClient`.
enum PurchaseRequests {
    /// `POST /v1/transactions` with a signed transaction.
    static func redeem(_ jws: String) -> String { post("/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}") }

    /// `POST /v1/transactions/{id}/finish` with the redeem answer's finish token, confirming each content
    /// with its digest.
    static func finish(_ id: String, token: String, delivered: [(contentId: String, digest: String)]) -> String {
        let items = delivered.map { "{\"contentId\": \"\($0.contentId)\", \"digest\": \"\($0.digest)\"}" }
        return post(
            "/v1/transactions/\(id)/finish", "{\"finishToken\": \"\(token)\", \"delivered\": [\(items.joined(separator: ", "))]}")
    }

    /// `GET /v1/admin/transactions/{id}` with the admin token.
    static func report(_ id: String) -> String {
        RawHTTPClient.get("/v1/admin/transactions/\(id)", [SharedInstances.adminAuthorization])
    }

    /// A POST request's text with a JSON body.
    static func post(_ path: String, _ json: String, headers: [String] = []) -> String {
        var text = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        for header in headers { text += header + "\r\n" }
        return text + "Content-Length: \(json.utf8.count)\r\n\r\n\(json)"
    }

    /// Signs a transaction with the development root kept in `dataDirectory/dev-ca`.
    static func sign(
        dataDirectory: String, bundleId: String, product: String, type: String,
        configure: (inout DevelopmentTransactionBuilder) -> Void = { _ in }
    ) throws -> (jws: String, id: String) {
        let authority = try DevelopmentCertificateAuthority.loadOrCreate(directory: dataDirectory + "/dev-ca")
        var builder = DevelopmentTransactionBuilder(bundleId: bundleId, productId: product, type: type)
        configure(&builder)
        return (try authority.sign(payload: builder.payload()), builder.transactionId)
    }
}

/// A parsed JSON answer, read by key paths such as `"transaction.state"` or `"downloads.0.url"`.
struct JSONAnswer: @unchecked Sendable {
    let value: Any

    init(_ response: RawHTTPClient.Response) throws {
        value = try JSONSerialization.jsonObject(with: Data(response.body))
    }

    init(value: Any) { self.value = value }

    /// The value at a dotted path; numbers index arrays.
    subscript(_ path: String) -> JSONAnswer? {
        var current: Any = value
        for key in path.split(separator: ".") {
            if let index = Int(key), let array = current as? [Any] {
                guard array.indices.contains(index) else { return nil }
                current = array[index]
            } else if let object = current as? [String: Any], let next = object[String(key)] {
                current = next
            } else {
                return nil
            }
        }
        return JSONAnswer(value: current)
    }

    var string: String? { value as? String }
    var int: Int? { (value as? NSNumber)?.intValue }
    var bool: Bool? { value as? Bool }
    var array: [JSONAnswer] { (value as? [Any])?.map(JSONAnswer.init(value:)) ?? [] }
}

/// Opens the ledger a Depot configuration names, read-side, as another process would; closed after `body`.
enum LedgerReader {
    static func with<T>(_ url: String, _ body: (any Ledger) async throws -> T) async throws -> T {
        if url.hasPrefix("sqlite:") {
            let ledger = try await SQLiteLedger.open(path: String(url.dropFirst("sqlite:".count)))
            do {
                let result = try await body(ledger)
                try ledger.close()
                return result
            } catch {
                try? ledger.close()
                throw error
            }
        }
        let ledger = try await PostgresLedger.connect(url: url, logger: PostgresLedger.quietLogger)
        do {
            let result = try await body(ledger)
            await ledger.shutdown()
            return result
        } catch {
            await ledger.shutdown()
            throw error
        }
    }
}

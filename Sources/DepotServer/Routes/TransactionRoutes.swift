import DepotSettings
import DepotTelemetry
import DepotAPI
import DepotCore
import Foundation
import Hummingbird
import HTTPTypes
import NIOCore

/// `POST /v1/transactions`, `POST /v1/transactions/{id}/finish`, `POST /v1/transactions/{id}/consent`,
/// `POST /v1/restore` and
/// `POST /v1/notifications/appstore`.
struct TransactionRoutes: Sendable {
    let service: DeliveryService
    let trustedProxies: TrustedProxies
    /// Where redeems and finishes are counted by outcome; nil counts nothing.
    var metrics: DepotMetrics? = nil

    func register(on router: Router<DepotRequestContext>) {
        router.post("/v1/transactions") { request, context in
            try await Self.counting({ self.metrics?.redeem(outcome: $0) }) {
                let body = try await Self.decode(RedeemRequest.self, from: request, context: context)
                return try Self.json(try await self.service.redeem(body, client: self.client(request, context)))
            }
        }
        router.post("/v1/transactions/:id/finish") { request, context in
            try await Self.counting({ self.metrics?.finish(outcome: $0) }) {
                let id = try context.transactionIdParameter()
                let body = try await Self.decode(FinishRequest.self, from: request, context: context)
                return try Self.json(try await self.service.finish(transactionId: id, body))
            }
        }
        router.post("/v1/transactions/:id/consent") { request, context in
            let id = try context.transactionIdParameter()
            let body = try await Self.decode(ConsentRequest.self, from: request, context: context)
            return try Self.json(try await self.service.consent(transactionId: id, body))
        }
        router.post("/v1/restore") { request, context in
            let body = try await Self.decode(RestoreRequest.self, from: request, context: context)
            return try Self.json(try await self.service.restore(body, client: self.client(request, context)))
        }
        router.post("/v1/notifications/appstore") { request, context in
            let body = try await Self.decode(NotificationRequest.self, from: request, context: context)
            return try Self.json(try await self.service.handleNotification(body))
        }
    }

    /// Runs a route's work and reports its outcome: `ok`, the code of the `DepotError` it threw, or `internal`.
    private static func counting(
        _ report: (String) -> Void, _ work: () async throws -> Response
    ) async throws -> Response {
        do {
            let response = try await work()
            report("ok")
            return response
        } catch let error as DepotError {
            report(error.code)
            throw error
        } catch {
            report("internal")
            throw error
        }
    }

    /// The client's address: the peer, or the one a trusted proxy forwarded for.
    private func client(_ request: Request, _ context: DepotRequestContext) -> String {
        trustedProxies.clientAddress(peer: context.clientAddress, forwardedFor: request.headers[values: .xForwardedFor])
    }

    /// Decodes a JSON body; anything unreadable is a 400 naming what is wrong, a body too large a 413.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, context: DepotRequestContext) async throws -> T {
        let tooLarge = DepotError(.tooLarge, "the request body is larger than \(context.maxUploadSize) bytes")
        // A declared length over the limit is refused before a byte of the body is read.
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > context.maxUploadSize {
            throw tooLarge
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: context.maxUploadSize)
        } catch {
            throw tooLarge
        }
        // RFC 8259 §8.1: JSON exchanged between systems is UTF-8. Foundation's decoder would turn an invalid
        // sequence inside a string into U+FFFD and read on; such a body is refused whole instead.
        guard String(validating: buffer.readableBytesView, as: UTF8.self) != nil else {
            throw DepotError.badRequest("the body is not valid UTF-8")
        }
        do {
            return try JSONDecoder().decode(type, from: Data(buffer.readableBytesView))
        } catch let error as DepotError {
            throw error
        } catch let DecodingError.keyNotFound(key, _) {
            throw DepotError.badRequest("the JSON body lacks \"\(key.stringValue)\"")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw DepotError.badRequest("the JSON body has the wrong type at \"\(path)\"")
        } catch {
            throw DepotError.badRequest("the body is not valid JSON")
        }
    }

    static func json(_ value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension HTTPField.Name {
    /// `X-Forwarded-For`: the addresses a request was forwarded for, nearest proxy last.
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}

import DepotAPI
import DepotCore
import DepotServices
import Foundation
import Hummingbird

/// The publisher's release routes, behind `PublisherAuthMiddleware`, each answering the version as it now stands
/// (`PublishBody`):
/// - `POST .../versions/{version}/publish` publishes a version: in full by default (it becomes current, or a
///   rollback to it), to part of the buyers with `{"rollout": 10}`, or to test purchases with
///   `{"channel": "beta"}`;
/// - `POST .../versions/{version}/rollout` with `{"percent": 25}` raises a rollout (100 completes it; a halted one
///   resumes);
/// - `POST .../versions/{version}/halt` halts a rollout: nobody new gets the version, buyers who got it keep it;
/// - `POST .../versions/{version}/promote` publishes a beta version to production, in full or with
///   `{"rollout": 10}`.
///
/// Rolling back during a rollout is publishing the current version again, which ends the rollout.
struct PublisherReleaseRoutes: Sendable {
    let products: PublisherProductRoutes

    var publishing: PublishingService { products.publishing }

    func register(on group: RouterGroup<DepotRequestContext>) {
        group.post("/products/:productId/versions/:version/publish") { request, context in
            let body = try await Self.decodeIfPresent(ReleaseRequest.self, from: request, context: context)
            let release = try Self.release(rollout: body?.rollout, channel: body?.channel)
            return try await self.answer(request, context) { productId, contentId, version, publisher in
                try await self.publishing.publish(
                    productId: productId, contentId: contentId, version: version, release: release, publisher: publisher)
            }
        }
        group.post("/products/:productId/versions/:version/rollout") { request, context in
            let body = try await TransactionRoutes.decode(RolloutRequest.self, from: request, context: context)
            guard let percent = body.percent else { throw DepotError.badRequest("the JSON body lacks \"percent\"") }
            let release = try Self.release(rollout: percent, channel: nil)
            return try await self.answer(request, context) { productId, contentId, version, publisher in
                try await self.publishing.publish(
                    productId: productId, contentId: contentId, version: version, release: release, publisher: publisher)
            }
        }
        group.post("/products/:productId/versions/:version/halt") { request, context in
            try await self.answer(request, context) { productId, contentId, version, publisher in
                try await self.publishing.halt(productId: productId, contentId: contentId, version: version, publisher: publisher)
            }
        }
        group.post("/products/:productId/versions/:version/promote") { request, context in
            let body = try await Self.decodeIfPresent(ReleaseRequest.self, from: request, context: context)
            if body?.channel != nil { throw DepotError(.invalidRelease, "a promotion is to production; leave out \"channel\"") }
            let percent = try Self.release(rollout: body?.rollout, channel: nil).percent
            return try await self.answer(request, context) { productId, contentId, version, publisher in
                try await self.publishing.promote(
                    productId: productId, contentId: contentId, version: version, percent: percent, publisher: publisher)
            }
        }
    }

    /// Resolves the route's version, runs `change` on it, and answers the version as it now stands.
    private func answer(
        _ request: Request, _ context: DepotRequestContext,
        _ change: (String, String, String, String) async throws -> PublishingService.Publication
    ) async throws -> Response {
        let productId = try PublisherProductRoutes.productId(context)
        let (contentId, version) = try await products.resolve(request, context, productId: productId)
        let publication = try await change(productId, contentId, version, context.publisher?.name ?? "?")
        let versions = try await publishing.versions(productId)
        let body = PublisherVersionBody.list(versions, now: publishing.clock()).first {
            $0.contentId == contentId && $0.version == version
        }
        guard let body else { throw PublishingError.unknownVersion(contentId: contentId, version: version) }
        return try TransactionRoutes.json(PublishBody(version: body, rollback: publication.rollback, changed: publication.changed))
    }

    /// The release a request asks for: `rollout` a whole percent from 1 to 100 (absent: 100), `channel`
    /// `production` (the default) or `beta` (which takes no rollout).
    static func release(rollout: Int?, channel: String?) throws -> VersionRelease {
        if let rollout, !(1...100).contains(rollout) {
            throw DepotError(.invalidRelease, "\"rollout\" is a whole percent from 1 to 100, not \(rollout)")
        }
        let named = channel ?? VersionRelease.Channel.production.rawValue
        guard let channel = VersionRelease.Channel(rawValue: named) else {
            throw DepotError(.invalidRelease, "\"channel\" is \"production\" or \"beta\", not \"\(named)\"")
        }
        if channel == .beta, rollout != nil {
            throw DepotError(.invalidRelease, "a beta version reaches every test purchase; leave out \"rollout\"")
        }
        return VersionRelease(channel: channel, percent: rollout ?? 100)
    }

    /// The JSON body, or nil when the request has none (an empty body, as a bare `POST` sends).
    static func decodeIfPresent<T: Decodable>(_ type: T.Type, from request: Request, context: DepotRequestContext) async throws -> T? {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: context.maxUploadSize)
        } catch {
            throw DepotError(.tooLarge, "the request body is larger than \(context.maxUploadSize) bytes")
        }
        guard buffer.readableBytesView.contains(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return nil }
        return try await TransactionRoutes.decode(type, from: request, context: context)
    }
}

/// `POST .../publish` and `POST .../promote`'s optional body.
struct ReleaseRequest: Decodable {
    var rollout: Int?
    var channel: String?
}

/// `POST .../rollout`'s body.
struct RolloutRequest: Decodable {
    var percent: Int?
}

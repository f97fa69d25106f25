import DepotSettings
import DepotServices
import DepotAPI
import DepotCore
import DepotHTTP
import Hummingbird
import HTTPTypes
import NIOCore

/// The tus 1.0 upload routes, below the group they are registered on (`/v1/publisher/uploads`):
///
/// | request | answer |
/// |---|---|
/// | `OPTIONS /`, `OPTIONS /{id}` | 204, `Tus-Version`, `Tus-Extension`, `Tus-Max-Size`, `Tus-Checksum-Algorithm` |
/// | `POST /` (`Upload-Length` or `Upload-Defer-Length: 1`, `Upload-Metadata`, optionally a body) | 201, `Location`, `Upload-Offset`, `Upload-Expires` |
/// | `HEAD /{id}` | 200, `Upload-Offset`, `Upload-Length` or `Upload-Defer-Length`, `Upload-Metadata`, `Upload-Expires` |
/// | `PATCH /{id}` (`Upload-Offset`, optional `Upload-Checksum`, `Upload-Length`) | 204, `Upload-Offset`, `Upload-Expires` |
/// | `DELETE /{id}` | 204 |
///
/// The group carries the authentication and the `TusMiddleware`; bodies are streamed, never collected. `Location`
/// is absolute, on the origin the client reached (see ``RequestOrigin``), as tusd answers: clients are written
/// against it.
struct UploadRoutes: Sendable {
    /// Where the group is mounted.
    static let path = "/v1/publisher/uploads"

    let service: UploadService
    /// The name uploads are recorded under for a request (the authenticated publisher).
    let publisher: @Sendable (Request, DepotRequestContext) -> String
    /// How the origin of `Location` is found.
    let origin: RequestOrigin

    init(
        service: UploadService, origin: RequestOrigin = RequestOrigin(tls: false, trustedProxies: .none),
        publisher: @escaping @Sendable (Request, DepotRequestContext) -> String = { _, _ in "operator" }
    ) {
        self.service = service
        self.origin = origin
        self.publisher = publisher
    }

    /// Adds the routes to `group`.
    func register(on group: RouterGroup<DepotRequestContext>) {
        group.on("", method: .options) { _, _ in self.options() }
        group.on(":id", method: .options) { _, _ in self.options() }
        group.post("") { request, context in try await self.create(request, context: context) }
        group.head(":id") { request, context in
            let state = try await self.service.state(
                id: try context.parameters.require("id"), owner: self.publisher(request, context))
            var headers = self.stateHeaders(state)
            if !state.metadata.isEmpty { headers[.uploadMetadata] = state.metadata }
            return Response(status: .ok, headers: headers)
        }
        group.patch(":id") { request, context in
            let state = try await self.append(
                request, context: context, id: try context.parameters.require("id"), offset: request.headers[.uploadOffset])
            return Response(status: .noContent, headers: self.stateHeaders(state, length: false))
        }
        group.delete(":id") { request, context in
            try await self.service.terminate(id: try context.parameters.require("id"), owner: self.publisher(request, context))
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }

    private func options() -> Response {
        Response(
            status: .noContent,
            headers: [
                .tusVersion: TusProtocol.version,
                .tusExtension: TusProtocol.extensions.joined(separator: ","),
                .tusMaxSize: String(service.settings.maxSize),
                .tusChecksumAlgorithm: UploadChecksum.Algorithm.allCases.map(\.rawValue).joined(separator: ","),
            ])
    }

    /// tus creation, and creation-with-upload when the POST carries `application/offset+octet-stream` bytes.
    private func create(_ request: Request, context: DepotRequestContext) async throws -> Response {
        let creation = try UploadRules.creation(
            uploadLength: request.headers[.uploadLength], deferLength: request.headers[.uploadDeferLength],
            metadata: request.headers[.uploadMetadata], maxSize: service.settings.maxSize)
        let withBody = UploadRules.isOffsetStream(request.headers[.contentType])
        if !withBody, let length = Self.contentLength(request), length > 0 {
            throw UploadError.uploadMediaType
        }
        if withBody, let length = Self.contentLength(request), length > (creation.length ?? service.settings.maxSize) {
            throw UploadError.uploadTooLarge("the bytes sent pass the upload's length")
        }
        if let checksum = request.headers[.uploadChecksum] { _ = try UploadChecksum(header: checksum) }
        var state = try await service.create(creation, publisher: publisher(request, context))
        let location =
            origin.origin(
                authority: request.head.authority, headers: request.headers, peer: context.clientAddress,
                local: context.localAddress) + Self.path + "/" + state.id
        if withBody {
            do {
                state = try await append(request, context: context, id: state.id, offset: "0")
            } catch let error as UploadError {
                // The upload exists: say where, so the client can resume it.
                var response = try DepotErrorResponse(DepotError(error)).response(from: request, context: context)
                response.headers[.location] = location
                return response
            }
        }
        var headers = stateHeaders(state, length: false)
        headers[.location] = location
        return Response(status: .created, headers: headers)
    }

    private func append(
        _ request: Request, context: DepotRequestContext, id: String, offset: String?
    ) async throws
        -> UploadService.State
    {
        try await service.append(
            id: id, owner: publisher(request, context), contentType: request.headers[.contentType], uploadOffset: offset,
            uploadLength: request.headers[.uploadLength], contentLength: Self.contentLength(request),
            checksum: request.headers[.uploadChecksum], body: request.body)
    }

    private func stateHeaders(_ state: UploadService.State, length: Bool = true) -> HTTPFields {
        var headers: HTTPFields = [
            .uploadOffset: String(state.offset), .cacheControl: "no-store",
            .uploadExpires: HTTPDate.format(state.expiresAt),
        ]
        if length {
            if let total = state.length {
                headers[.uploadLength] = String(total)
            } else {
                headers[.uploadDeferLength] = "1"
            }
        }
        return headers
    }

    private static func contentLength(_ request: Request) -> Int64? {
        request.headers[.contentLength].flatMap { Int64($0) }
    }
}

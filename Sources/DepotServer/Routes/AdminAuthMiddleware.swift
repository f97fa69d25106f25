import Crypto
import DepotCore
import Hummingbird

/// Opens `/v1/admin/...` to operators: `Authorization: Bearer TOKEN` whose SHA-256 is configured.
/// Tokens are stored hashed and compared in constant time.
struct AdminAuthMiddleware: RouterMiddleware {
    typealias Context = DepotRequestContext
    let tokenDigests: [[UInt8]]

    init(hexDigests: [String]) {
        tokenDigests = hexDigests.map { hex in
            var bytes: [UInt8] = []
            var index = hex.startIndex
            while index < hex.endIndex {
                let next = hex.index(index, offsetBy: 2)
                bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
                index = next
            }
            return bytes
        }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], let token = BundleResponder.bearerToken(header) else {
            throw DepotError(.adminTokenRequired, "send Authorization: Bearer ADMIN_TOKEN")
        }
        let digest = Array(SHA256.hash(data: Array(token.utf8)))
        var matched = false
        for candidate in tokenDigests where candidate.count == digest.count {
            // Constant time: every byte compared whatever the earlier ones were.
            var difference: UInt8 = 0
            for (a, b) in zip(candidate, digest) { difference |= a ^ b }
            matched = matched || difference == 0
        }
        guard matched else {
            throw DepotError(.adminTokenRefused, "the admin token is not accepted")
        }
        return try await next(request, context)
    }
}

import AsyncHTTPClient
import DepotOutboundHTTP
import Crypto
import DepotCore
import Foundation
import NIOCore
import NIOHTTP1
import XMLCoder

/// An S3 client on AsyncHTTPClient for one bucket of an S3-compatible store (Amazon S3, Ceph's RADOS Gateway, MinIO,
/// R2, Google Cloud Storage's S3 interface): every request signed with Signature Version 4, failed requests tried
/// again within ``ObjectStoreRetryPolicy``, every S3 error typed with its code (``ObjectStoreError``).
///
/// Keys are relative to the settings' prefix; the client adds it.
public struct ObjectStoreClient: Sendable {
    /// The settings it was made with.
    public let settings: ObjectStoreSettings
    let endpoint: ObjectStoreEndpoint
    let signer: SigV4Signer
    let http: HTTPClient
    let now: @Sendable () -> Int64
    let random: @Sendable () -> Double

    /// A client for `settings`' bucket, over `http`; `now` is the signing time in seconds since 1970.
    public init(
        settings: ObjectStoreSettings, http: HTTPClient = OutboundHTTP.client,
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) throws(ObjectStoreError) {
        guard !settings.bucket.isEmpty, !settings.bucket.contains("/") else {
            throw .configuration("the bucket name \"\(settings.bucket)\" cannot be used")
        }
        guard !settings.region.isEmpty else { throw .configuration("the region is empty") }
        self.settings = settings
        endpoint = try ObjectStoreEndpoint(settings.endpoint)
        signer = SigV4Signer(credentials: settings.credentials, region: settings.region)
        self.http = http
        self.now = now
        self.random = random
    }

    /// One answer: status, headers and the body read (at most the request's limit).
    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: ByteBuffer
    }

    /// One request as built before signing.
    struct Call: Sendable {
        var method: HTTPMethod
        /// The object key under the prefix, or nil for the bucket itself.
        var key: String?
        var query: [(name: String, value: String)] = []
        var headers: [(name: String, value: String)] = []
        var body: ByteBuffer? = nil
        /// The most body bytes of the answer read.
        var maxAnswerBytes: Int = 1 << 20
    }

    /// The path of a key (or of the bucket), encoded as it is sent and signed.
    func encodedPath(_ key: String?) -> String {
        let object = key.map { SigV4Encoding.path(settings.prefix + $0) }
        if settings.pathStyle {
            return "/" + SigV4Encoding.component(settings.bucket) + (object.map { "/" + $0 } ?? "")
        }
        return "/" + (object ?? "")
    }

    /// The `Host` the request goes to.
    var authority: String {
        settings.pathStyle ? endpoint.authority : "\(settings.bucket).\(endpoint.authority)"
    }

    /// The signed request, as AsyncHTTPClient sends it.
    func signedRequest(_ call: Call) -> HTTPClientRequest {
        let path = encodedPath(call.key)
        let date = SigV4Date(secondsSince1970: now())
        let payloadHash = call.body.map { Hex.lowercase(SHA256.hash(data: Array($0.readableBytesView))) } ?? SigV4Signer.emptyPayloadHash
        var headers = call.headers
        headers.append(("Host", authority))
        headers.append(("x-amz-date", date.timestamp))
        headers.append(("x-amz-content-sha256", payloadHash))
        if let token = settings.credentials.sessionToken { headers.append(("x-amz-security-token", token)) }
        let signing = SigV4Signer.Request(
            method: call.method.rawValue, encodedPath: path, query: call.query, headers: headers, payloadHash: payloadHash)
        let query = call.query.map { "\(SigV4Encoding.component($0.name))=\(SigV4Encoding.component($0.value))" }
            .joined(separator: "&")
        var request = HTTPClientRequest(url: "\(endpoint.scheme)://\(authority)\(path)\(query.isEmpty ? "" : "?" + query)")
        request.method = call.method
        for header in headers { request.headers.add(name: header.name, value: header.value) }
        request.headers.add(name: "Authorization", value: signer.authorization(signing, date: date))
        if let body = call.body {
            request.body = .bytes(body)
        } else if call.method == .PUT || call.method == .POST {
            request.headers.replaceOrAdd(name: "Content-Length", value: "0")
        }
        return request
    }

    /// Sends a call, tried again within the retry policy; an answer outside `accepted` becomes a typed error.
    func send(_ call: Call, accepted: Set<Int>) async throws(ObjectStoreError) -> Answer {
        var attempt = 1
        while true {
            do throws(ObjectStoreError) {
                let answer = try await sendOnce(call)
                guard accepted.contains(answer.status) else { throw Self.serviceError(answer) }
                return answer
            } catch {
                guard error.isRetryable, !Task.isCancelled, attempt < settings.retry.maxAttempts else { throw error }
                let delay = settings.retry.delay(afterAttempt: attempt, random: random())
                try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
                attempt += 1
            }
        }
    }

    /// One attempt.
    private func sendOnce(_ call: Call) async throws(ObjectStoreError) -> Answer {
        do {
            let response = try await http.execute(signedRequest(call), timeout: .seconds(settings.timeoutSeconds))
            let body = try await response.body.collect(upTo: call.maxAnswerBytes)
            return Answer(status: Int(response.status.code), headers: response.headers, body: body)
        } catch let error as NIOTooManyBytesError {
            throw .tooLarge(limit: error.maxBytes ?? call.maxAnswerBytes)
        } catch {
            throw .transport("\(error)")
        }
    }

    /// The typed error of an answer S3 refused: the code of its `<Error>` body, or one named after the status.
    static func serviceError(_ answer: Answer) -> ObjectStoreError {
        let parsed = try? XMLDecoder().decode(S3ErrorBody.self, from: Data(answer.body.readableBytesView))
        return .service(
            status: answer.status, code: parsed?.code ?? ObjectStoreError.code(forStatus: answer.status),
            message: parsed?.message ?? "", requestId: parsed?.requestId ?? answer.headers.first(name: "x-amz-request-id"))
    }

    /// Decodes an XML answer body.
    static func decode<T: Decodable>(_ type: T.Type, _ answer: Answer) throws(ObjectStoreError) -> T {
        do {
            return try XMLDecoder().decode(type, from: Data(answer.body.readableBytesView))
        } catch {
            throw .invalidAnswer("\(T.self): \(error)")
        }
    }
}

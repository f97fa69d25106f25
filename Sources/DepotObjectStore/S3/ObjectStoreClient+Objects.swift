import DepotCore
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// What the store holds of one object.
public struct ObjectInfo: Sendable, Equatable {
    /// The key, relative to the prefix.
    public var key: String
    /// Its size in bytes.
    public var size: Int64
    /// Its entity tag, quotes included.
    public var eTag: String?
    /// When it was last written, in seconds since 1970 (listings give it; nil otherwise or when unreadable).
    public var lastModified: Int64? = nil

    /// `2026-11-28T08:35:09.881Z` (S3's listings, with or without the fraction) in seconds since 1970.
    static func seconds(iso8601 text: String) -> Int64? {
        let whole = text.split(separator: ".", maxSplits: 1).first.map(String.init) ?? text
        return UTCTimestamp.parse(whole.hasSuffix("Z") ? whole : whole + "Z")
    }
}

/// Some bytes of an object.
public struct ObjectBytes: Sendable, Equatable {
    /// The bytes read.
    public var bytes: [UInt8]
    /// The object's whole size (from `Content-Range` for a range, else `Content-Length`).
    public var objectSize: Int64?
    /// Its entity tag.
    public var eTag: String?
}

/// One page of a listing.
public struct ObjectListPage: Sendable, Equatable {
    /// The objects of this page, in key order.
    public var objects: [ObjectInfo]
    /// The token of the next page, nil on the last.
    public var continuationToken: String?
}

extension ObjectStoreClient {
    /// PutObject: stores `bytes` under `key`; returns its entity tag.
    @discardableResult
    public func put(
        _ key: String, bytes: [UInt8], contentType: String = "application/octet-stream"
    ) async throws(ObjectStoreError)
        -> String?
    {
        let answer = try await send(
            Call(method: .PUT, key: key, headers: [("Content-Type", contentType)], body: ByteBuffer(bytes: bytes)),
            accepted: [200])
        return answer.headers.first(name: "ETag")
    }

    /// PutObject with `If-None-Match: *`: stores `bytes` only when no object has the key. True when written, false
    /// when one was there (412 `PreconditionFailed`). A store that ignores the condition overwrites: use it for
    /// content-addressed keys, whose bytes are the same whoever writes them.
    public func putIfAbsent(
        _ key: String, bytes: [UInt8], contentType: String = "application/octet-stream"
    )
        async throws(ObjectStoreError) -> Bool
    {
        do throws(ObjectStoreError) {
            _ = try await send(
                Call(
                    method: .PUT, key: key, headers: [("Content-Type", contentType), ("If-None-Match", "*")],
                    body: ByteBuffer(bytes: bytes)),
                accepted: [200])
            return true
        } catch {
            if error.code == "PreconditionFailed" { return false }
            // 409 ConditionalRequestConflict: another conditional write of the key is in flight, and may yet fail; the
            // key counts as taken only once the object is there.
            if error.code == "ConditionalRequestConflict", try await head(key) != nil { return false }
            throw error
        }
    }

    /// GetObject: the object's bytes, or those of `range` (inclusive offsets); at most `maxBytes` are read.
    public func get(
        _ key: String, range: ClosedRange<Int64>? = nil, maxBytes: Int = 64 << 20
    ) async throws(ObjectStoreError)
        -> ObjectBytes
    {
        var call = Call(method: .GET, key: key, maxAnswerBytes: maxBytes)
        if let range { call.headers.append(("Range", "bytes=\(range.lowerBound)-\(range.upperBound)")) }
        let answer = try await send(call, accepted: [200, 206])
        var size = answer.headers.first(name: "Content-Length").flatMap { Int64($0) }
        if answer.status == 206 {
            // Content-Range: bytes first-last/complete
            size = answer.headers.first(name: "Content-Range")?.split(separator: "/").last.flatMap { Int64($0) }
        }
        return ObjectBytes(bytes: Array(answer.body.readableBytesView), objectSize: size, eTag: answer.headers.first(name: "ETag"))
    }

    /// HeadObject: the object's size and entity tag, or nil when there is none.
    public func head(_ key: String) async throws(ObjectStoreError) -> ObjectInfo? {
        do throws(ObjectStoreError) {
            let answer = try await send(Call(method: .HEAD, key: key), accepted: [200])
            guard let size = answer.headers.first(name: "Content-Length").flatMap({ Int64($0) }) else {
                throw ObjectStoreError.invalidAnswer("HEAD \(key) has no Content-Length")
            }
            return ObjectInfo(key: key, size: size, eTag: answer.headers.first(name: "ETag"))
        } catch {
            if error.isNotFound { return nil }
            throw error
        }
    }

    /// DeleteObject; deleting a key that is not there succeeds (S3 answers 204 either way).
    public func delete(_ key: String) async throws(ObjectStoreError) {
        do throws(ObjectStoreError) {
            _ = try await send(Call(method: .DELETE, key: key), accepted: [200, 204])
        } catch {
            if error.isNotFound { return }
            throw error
        }
    }

    /// ListObjectsV2: one page of the keys under `prefix` (relative to the client's prefix), at most `maxKeys`.
    public func list(
        prefix: String = "", continuationToken: String? = nil, maxKeys: Int = 1000
    ) async throws(ObjectStoreError)
        -> ObjectListPage
    {
        var query: [(name: String, value: String)] = [
            ("list-type", "2"), ("prefix", settings.prefix + prefix), ("max-keys", String(min(max(maxKeys, 1), 1000))),
        ]
        if let continuationToken { query.append(("continuation-token", continuationToken)) }
        let answer = try await send(Call(method: .GET, key: nil, query: query, maxAnswerBytes: 16 << 20), accepted: [200])
        let body = try Self.decode(ListBucketResultBody.self, answer)
        let objects = (body.contents ?? []).compactMap { entry -> ObjectInfo? in
            guard entry.key.hasPrefix(settings.prefix) else { return nil }
            return ObjectInfo(
                key: String(entry.key.dropFirst(settings.prefix.count)), size: entry.size ?? 0, eTag: entry.eTag,
                lastModified: entry.lastModified.flatMap(ObjectInfo.seconds(iso8601:)))
        }
        let more = body.isTruncated == true
        guard !more || body.nextContinuationToken?.isEmpty == false else {
            throw .invalidAnswer("a truncated listing without NextContinuationToken")
        }
        return ObjectListPage(objects: objects, continuationToken: more ? body.nextContinuationToken : nil)
    }

    /// Every key under `prefix`, page after page.
    public func listAll(prefix: String = "", pageSize: Int = 1000) async throws(ObjectStoreError) -> [ObjectInfo] {
        var all: [ObjectInfo] = []
        var token: String?
        repeat {
            let page = try await list(prefix: prefix, continuationToken: token, maxKeys: pageSize)
            all += page.objects
            token = page.continuationToken
        } while token != nil
        return all
    }
}

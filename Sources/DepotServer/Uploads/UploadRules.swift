import DepotCore
import DepotLedger
import HTTPTypes

/// The tus 1.0 rules a request must pass before anything is written: pure, headers and records in,
/// decisions out, so that every rule is tested without a socket.
enum UploadRules {
    /// Every request but OPTIONS must carry `Tus-Resumable: 1.0.0` (tus 1.0 "Tus-Resumable"; 412 otherwise).
    static func checkVersion(method: HTTPRequest.Method, tusResumable: String?) throws(DepotError) {
        guard method != .options else { return }
        guard tusResumable?.trimmingSpaces == TusProtocol.version else {
            throw .unsupportedTusVersion(tusResumable)
        }
    }

    /// What a creation request (POST) asks for.
    struct Creation: Equatable {
        /// The declared length, nil when deferred.
        var length: Int64?
        /// The checked `Upload-Metadata` header, empty when none.
        var metadata: String
    }

    /// tus creation: exactly one of `Upload-Length` (at most `maxSize`, else 413) and
    /// `Upload-Defer-Length: 1`; a strict `Upload-Metadata`.
    static func creation(
        uploadLength: String?, deferLength: String?, metadata: String?, maxSize: Int64
    ) throws(DepotError) -> Creation {
        let checkedMetadata =
            try metadata.map { header throws(DepotError) in
                _ = try UploadMetadata(header: header)
                return header.trimmingSpaces
            } ?? ""
        switch (uploadLength, deferLength) {
        case (let length?, nil):
            let value = try decimal(length, header: "Upload-Length")
            guard value <= maxSize else {
                throw .uploadTooLarge("Upload-Length \(value) is larger than Tus-Max-Size \(maxSize)")
            }
            return Creation(length: value, metadata: checkedMetadata)
        case (nil, let deferred?):
            guard deferred.trimmingSpaces == "1" else { throw .badUploadHeader("Upload-Defer-Length must be 1") }
            return Creation(length: nil, metadata: checkedMetadata)
        case (nil, nil):
            throw .badUploadHeader("send Upload-Length, or Upload-Defer-Length: 1")
        case (_?, _?):
            throw .badUploadHeader("send Upload-Length or Upload-Defer-Length, not both")
        }
    }

    /// Whether an upload may be answered at all: 404 when unknown, 410 once expired.
    static func live(_ record: UploadRecord?, now: Int64) throws(DepotError) -> UploadRecord {
        guard let record else { throw .uploadNotFound }
        guard record.expiresAt > now else { throw .uploadExpired }
        return record
    }

    /// What a PATCH may write.
    struct Write: Equatable {
        /// The offset the bytes start at (the upload's offset).
        var start: Int64
        /// A length to record, when the upload's was deferred and this request gives it.
        var setLength: Int64?
        /// Most bytes this request may append.
        var limit: Int64
    }

    /// tus core PATCH: the upload lives, the body is `application/offset+octet-stream` (415), `Upload-Offset`
    /// equals the upload's offset (409), a deferred length may be given once (creation-defer-length), and
    /// the bytes may not pass the length or `maxSize` (413).
    static func patch(
        _ record: UploadRecord?, now: Int64, contentType: String?, uploadOffset: String?, uploadLength: String?,
        contentLength: Int64?, maxSize: Int64
    ) throws(DepotError) -> Write {
        let record = try live(record, now: now)
        guard isOffsetStream(contentType) else { throw .uploadMediaType }
        guard let uploadOffset else { throw .badUploadHeader("send Upload-Offset") }
        let offset = try decimal(uploadOffset, header: "Upload-Offset")
        guard offset == record.offset else { throw .offsetMismatch(expected: record.offset, given: offset) }
        var setLength: Int64?
        if let uploadLength {
            let value = try decimal(uploadLength, header: "Upload-Length")
            if let known = record.length {
                guard value == known else { throw .badUploadHeader("Upload-Length \(value) differs from the upload's \(known)") }
            } else {
                guard value >= record.offset else {
                    throw .badUploadHeader("Upload-Length \(value) is less than the \(record.offset) bytes already received")
                }
                guard value <= maxSize else {
                    throw .uploadTooLarge("Upload-Length \(value) is larger than Tus-Max-Size \(maxSize)")
                }
                setLength = value
            }
        }
        let limit = (record.length ?? setLength ?? maxSize) - record.offset
        if let contentLength, contentLength > limit {
            if record.isComplete { throw .uploadComplete }
            throw .uploadTooLarge("\(contentLength) more bytes would pass the upload's length (\(limit) bytes remain)")
        }
        return Write(start: record.offset, setLength: setLength, limit: limit)
    }

    /// Whether a Content-Type is tus's `application/offset+octet-stream` (parameters ignored, case-insensitive).
    static func isOffsetStream(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
        return mediaType.trimmingSpaces.lowercased() == TusProtocol.offsetStreamType
    }

    /// A non-negative decimal integer of at most 18 digits, as tus sizes and offsets are written.
    static func decimal(_ text: String, header: String) throws(DepotError) -> Int64 {
        let digits = text.trimmingSpaces
        guard !digits.isEmpty, digits.count <= 18, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let value = Int64(digits)
        else {
            throw .badUploadHeader("\(header) must be a non-negative integer")
        }
        return value
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs (HTTP's optional whitespace).
    var trimmingSpaces: String {
        var view = Substring(self)
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" { view = view.dropLast() }
        return String(view)
    }
}

import DepotCore

/// The tus 1.0 rules a request must pass before anything is written: pure, header values and numbers in,
/// decisions out, so that every rule is tested (and fuzzed) without a socket, a ledger or an HTTP type.
///
/// `UploadRules+Request.swift` applies them to a request's method and to the ledger's `UploadRecord`.
package enum UploadRules {
    /// Whether a `Tus-Resumable` value names the version served (tus 1.0 "Tus-Resumable").
    package static func isServedVersion(_ tusResumable: String?) -> Bool {
        tusResumable?.trimmingSpaces == TusProtocol.version
    }

    /// What a creation request (POST) asks for.
    package struct Creation: Equatable {
        /// The declared length, nil when deferred.
        package var length: Int64?
        /// The checked `Upload-Metadata` header, empty when none.
        package var metadata: String
    }

    /// tus creation: exactly one of `Upload-Length` (at most `maxSize`, else 413) and
    /// `Upload-Defer-Length: 1`; a strict `Upload-Metadata`, whose `version`, when a client sends one, follows the
    /// ``VersionName`` rule (a version named `.` or `..` could never be published).
    package static func creation(
        uploadLength: String?, deferLength: String?, metadata: String?, maxSize: Int64
    ) throws(UploadError) -> Creation {
        let checkedMetadata =
            try metadata.map { header throws(UploadError) in
                let parsed = try UploadMetadata(header: header)
                if parsed.pairs.contains(where: { $0.key == "version" }) {
                    guard let version = parsed.text("version"), VersionName.isAcceptable(version) else {
                        throw .badMetadata("the Upload-Metadata `version` must be \(VersionName.rule)")
                    }
                }
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

    /// What a PATCH may write.
    package struct Write: Equatable {
        /// The offset the bytes start at (the upload's offset).
        package var start: Int64
        /// A length to record, when the upload's was deferred and this request gives it.
        package var setLength: Int64?
        /// Most bytes this request may append.
        package var limit: Int64
    }

    /// tus core PATCH on a live upload holding `offset` bytes of `length` (nil while deferred): the body is
    /// `application/offset+octet-stream` (415), `Upload-Offset` equals the upload's offset (409), a deferred
    /// length may be given once (creation-defer-length), and the bytes may not pass the length or `maxSize` (413).
    package static func write(
        offset: Int64, length: Int64?, contentType: String?, uploadOffset: String?, uploadLength: String?,
        contentLength: Int64?, maxSize: Int64
    ) throws(UploadError) -> Write {
        guard isOffsetStream(contentType) else { throw .uploadMediaType }
        guard let uploadOffset else { throw .badUploadHeader("send Upload-Offset") }
        let given = try decimal(uploadOffset, header: "Upload-Offset")
        guard given == offset else { throw .offsetMismatch(expected: offset, given: given) }
        var setLength: Int64?
        if let uploadLength {
            let value = try decimal(uploadLength, header: "Upload-Length")
            if let known = length {
                guard value == known else { throw .badUploadHeader("Upload-Length \(value) differs from the upload's \(known)") }
            } else {
                guard value >= offset else {
                    throw .badUploadHeader("Upload-Length \(value) is less than the \(offset) bytes already received")
                }
                guard value <= maxSize else {
                    throw .uploadTooLarge("Upload-Length \(value) is larger than Tus-Max-Size \(maxSize)")
                }
                setLength = value
            }
        }
        let limit = (length ?? setLength ?? maxSize) - offset
        if let contentLength, contentLength > limit {
            if length == offset { throw .uploadComplete }
            throw .uploadTooLarge("\(contentLength) more bytes would pass the upload's length (\(limit) bytes remain)")
        }
        return Write(start: offset, setLength: setLength, limit: limit)
    }

    /// Whether a Content-Type is tus's `application/offset+octet-stream` (parameters ignored, case-insensitive).
    ///
    /// The media type is what comes before the first `;` (RFC 9110 §8.3.1), even when that is empty: a value
    /// such as `;application/offset+octet-stream` names no media type.
    package static func isOffsetStream(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = String(contentType.prefix { $0 != ";" })
        return mediaType.trimmingSpaces.lowercased() == TusProtocol.offsetStreamType
    }

    /// A non-negative decimal integer of at most 18 digits, as tus sizes and offsets are written.
    package static func decimal(_ text: String, header: String) throws(UploadError) -> Int64 {
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
    package var trimmingSpaces: String {
        var view = Substring(self)
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" { view = view.dropLast() }
        return String(view)
    }
}

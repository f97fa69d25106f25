// The plans the evaluator returns, one per status, with the header fields RFC 9110 asks for.

extension ResponsePlan {
    /// 200 with the whole representation: ETag, Last-Modified, Accept-Ranges, Content-Type, Content-Length,
    /// Cache-Control.
    static func complete(_ representation: RepresentationMetadata) -> ResponsePlan {
        let size = max(representation.size, 0)
        var headers = [HeaderField]()
        headers.reserveCapacity(6)
        appendValidatorFields(representation, to: &headers)
        headers.append(HeaderField(name: "Content-Type", value: representation.contentType))
        headers.append(HeaderField(name: "Content-Length", value: String(size)))
        appendCacheControl(representation, to: &headers)
        return ResponsePlan(status: 200, headers: headers, body: .file(offset: 0, length: size), contentLength: size)
    }

    /// 206 with one range (§15.3.7.1): Content-Range and Content-Length first, then what a 200 would carry.
    static func partial(_ representation: RepresentationMetadata, _ range: ByteRange) -> ResponsePlan {
        var headers = [HeaderField]()
        headers.reserveCapacity(7)
        headers.append(HeaderField(name: "Content-Range", value: range.contentRange(size: max(representation.size, 0))))
        headers.append(HeaderField(name: "Content-Length", value: String(range.length)))
        headers += partialFieldsAfterLength(representation)
        return ResponsePlan(
            status: 206, headers: headers, body: .file(offset: range.first, length: range.length),
            contentLength: range.length)
    }

    /// The fields of a single-part 206 after its Content-Range and Content-Length, in order: what a 200 carries
    /// besides its length. The same for every range, so a server may serialize them once per representation.
    package static func partialFieldsAfterLength(_ representation: RepresentationMetadata) -> [HeaderField] {
        var headers = [HeaderField]()
        headers.reserveCapacity(5)
        appendValidatorFields(representation, to: &headers)
        headers.append(HeaderField(name: "Content-Type", value: representation.contentType))
        appendCacheControl(representation, to: &headers)
        return headers
    }

    /// 206 with several ranges as multipart/byteranges (§14.6, §15.3.7.2); nil when `boundary` is unusable
    /// or the length would overflow.
    static func multipart(
        _ representation: RepresentationMetadata, _ ranges: [ByteRange], boundary: String
    ) -> ResponsePlan? {
        guard MultipartByteRanges.isValidBoundary(boundary),
            let body = MultipartByteRanges.body(
                ranges: ranges, size: max(representation.size, 0), contentType: representation.contentType,
                boundary: boundary)
        else { return nil }
        var headers = [
            HeaderField(name: "Content-Type", value: MultipartByteRanges.contentType(boundary: boundary)),
            HeaderField(name: "Content-Length", value: String(body.length)),
        ]
        appendValidatorFields(representation, to: &headers)
        appendCacheControl(representation, to: &headers)
        return ResponsePlan(status: 206, headers: headers, body: .segments(body.segments), contentLength: body.length)
    }

    /// 304 (§15.4.5): the fields a 200 would have carried that a cache needs, ETag and Cache-Control.
    /// Last-Modified is left out: the SHOULD NOT applies since ETag is present. No Content-Length.
    static func notModified(_ representation: RepresentationMetadata) -> ResponsePlan {
        var headers = [HeaderField(name: "ETag", value: representation.entityTagFieldValue)]
        appendCacheControl(representation, to: &headers)
        return ResponsePlan(status: 304, headers: headers, body: .none, contentLength: 0)
    }

    /// 412 (§15.5.13): no representation fields; the server writes its error body and Content-Length.
    static func preconditionFailed() -> ResponsePlan {
        ResponsePlan(status: 412, headers: [], body: .none, contentLength: 0)
    }

    /// 416 (§15.5.17): `Content-Range: bytes */N`; the server writes its error body and Content-Length.
    static func rangeNotSatisfiable(size: Int64) -> ResponsePlan {
        let headers = [HeaderField(name: "Content-Range", value: "bytes */" + String(size))]
        return ResponsePlan(status: 416, headers: headers, body: .none, contentLength: 0)
    }

    private static func appendValidatorFields(_ representation: RepresentationMetadata, to headers: inout [HeaderField]) {
        headers.append(HeaderField(name: "ETag", value: representation.entityTagFieldValue))
        headers.append(HeaderField(name: "Last-Modified", value: representation.lastModifiedFieldValue))
        headers.append(HeaderField(name: "Accept-Ranges", value: "bytes"))
    }

    private static func appendCacheControl(_ representation: RepresentationMetadata, to headers: inout [HeaderField]) {
        if let cacheControl = representation.cacheControl {
            headers.append(HeaderField(name: "Cache-Control", value: cacheControl))
        }
    }
}

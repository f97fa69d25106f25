/// One response header field of a plan.
package struct HeaderField: Sendable, Hashable {
    package var name: String
    package var value: String

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// The decision for one request: status, header fields and body layout.
///
/// Writes ETag, Last-Modified, Accept-Ranges, Content-Type, Content-Length, Content-Range and
/// Cache-Control as the status requires; never Date, Connection or Server, which the server adds.
/// For HEAD the server sends the same status and fields and no body.
package struct ResponsePlan: Sendable, Equatable {
    /// 200, 206, 304, 412 or 416.
    package var status: Int
    /// The header fields, in the order they should be written.
    package var headers: [HeaderField]
    /// What bytes follow the header section for GET.
    package var body: ResponseBody
    /// The length of the body as GET would send it; 0 for 304, 412 and 416 (whose error bodies the server
    /// writes and measures itself).
    package var contentLength: Int64

    package init(status: Int, headers: [HeaderField], body: ResponseBody, contentLength: Int64) {
        self.status = status
        self.headers = headers
        self.body = body
        self.contentLength = contentLength
    }

    /// The header fields as name/value pairs, for APIs that take tuples.
    package var headerPairs: [(name: String, value: String)] { headers.map { ($0.name, $0.value) } }

    /// The first value of the field `name`, compared case-insensitively; nil when absent.
    package func value(for name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// The body layout of a plan, in terms of the representation's file.
package enum ResponseBody: Sendable, Equatable {
    /// No body from the plan: 304, or 412/416 where the server writes its own small error body.
    case none
    /// A contiguous slice of the file: a 200 (offset 0, the whole size) or a single-range 206.
    case file(offset: Int64, length: Int64)
    /// A multipart/byteranges body: literal part headers alternating with file slices.
    case segments([BodySegment])
}

/// A piece of a multipart/byteranges body.
package enum BodySegment: Sendable, Equatable {
    /// Bytes written as they are (boundaries and part header fields).
    case literal([UInt8])
    /// A slice of the representation's file.
    case file(offset: Int64, length: Int64)
}

/// What the server knows about the selected representation (a bundle): the source of the ETag,
/// Last-Modified, Content-Type, Content-Length and Cache-Control fields of a response.
package struct RepresentationMetadata: Sendable {
    /// The size in bytes.
    package var size: Int64
    /// The opaque-tag's content without quotes (the hex digest); always a strong validator.
    package var entityTag: String
    /// Seconds since 1970 UTC: the publication time, written as Last-Modified.
    package var lastModified: Int64
    /// The media type, e.g. `application/zip`.
    package var contentType: String
    /// Copied onto 200, 206 and 304 responses when present.
    package var cacheControl: String?

    package init(size: Int64, entityTag: String, lastModified: Int64, contentType: String, cacheControl: String?) {
        self.size = size
        self.entityTag = entityTag
        self.lastModified = lastModified
        self.contentType = contentType
        self.cacheControl = cacheControl
    }

    /// The ETag field value: the strong tag in quotes.
    package var entityTagFieldValue: String { "\"" + entityTag + "\"" }
}

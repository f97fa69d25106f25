/// What the server knows about the selected representation (a bundle): the source of the ETag,
/// Last-Modified, Content-Type, Content-Length and Cache-Control fields of a response.
package struct RepresentationMetadata: Sendable {
    /// The size in bytes.
    package var size: Int64
    /// The opaque-tag's content without quotes (the hex digest); always a strong validator.
    package var entityTag: String {
        didSet { entityTagFieldValue = Self.fieldValue(entityTag: entityTag) }
    }
    /// Seconds since 1970 UTC: the publication time, written as Last-Modified.
    package var lastModified: Int64 {
        didSet { lastModifiedFieldValue = HTTPDate.format(lastModified) }
    }
    /// The ETag field value: the strong tag in quotes (kept, as every 200, 206 and 304 carries it).
    package private(set) var entityTagFieldValue: String
    /// The Last-Modified field value, an IMF-fixdate (kept, as every 200 and 206 carries it).
    package private(set) var lastModifiedFieldValue: String
    /// The media type, e.g. `application/zip`.
    package var contentType: String
    /// Copied onto 200, 206 and 304 responses when present.
    package var cacheControl: String?

    package init(size: Int64, entityTag: String, lastModified: Int64, contentType: String, cacheControl: String?) {
        self.size = size
        self.entityTag = entityTag
        self.lastModified = lastModified
        entityTagFieldValue = Self.fieldValue(entityTag: entityTag)
        lastModifiedFieldValue = HTTPDate.format(lastModified)
        self.contentType = contentType
        self.cacheControl = cacheControl
    }

    private static func fieldValue(entityTag: String) -> String { "\"" + entityTag + "\"" }
}

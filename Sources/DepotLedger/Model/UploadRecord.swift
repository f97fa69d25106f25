/// A resumable upload as the ledger keeps it, so that every instance sharing the ledger can answer for it.
/// Its bytes live on disk (`<dataDirectory>/uploads/<id>`); the record says how many of them count.
package struct UploadRecord: Sendable, Equatable {
    /// The upload's id: 32 lowercase hex digits.
    package var id: String
    /// Who made it (a publisher's name).
    package var publisher: String
    /// The total size in bytes, nil while the client deferred it (tus `Upload-Defer-Length`).
    package var length: Int64?
    /// Bytes received and durable on disk.
    package var offset: Int64
    /// The `Upload-Metadata` header as received (already checked), empty when none was sent.
    package var metadata: String
    /// When it was made, in seconds since 1970.
    package var createdAt: Int64
    /// When it expires and its bytes may be removed, in seconds since 1970.
    package var expiresAt: Int64

    /// Creates a record.
    package init(
        id: String, publisher: String, length: Int64?, offset: Int64, metadata: String, createdAt: Int64,
        expiresAt: Int64
    ) {
        self.id = id
        self.publisher = publisher
        self.length = length
        self.offset = offset
        self.metadata = metadata
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// Whether every byte has arrived.
    package var isComplete: Bool { length == offset }
}

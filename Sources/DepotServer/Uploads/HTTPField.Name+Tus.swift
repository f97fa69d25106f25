import HTTPTypes

/// The tus 1.0 header names (https://tus.io/protocols/resumable-upload).
extension HTTPField.Name {
    /// `Tus-Resumable`: the protocol version of a request or answer.
    static let tusResumable = Self("Tus-Resumable")!
    /// `Tus-Version`: the versions served (OPTIONS, 412).
    static let tusVersion = Self("Tus-Version")!
    /// `Tus-Extension`: the extensions served (OPTIONS).
    static let tusExtension = Self("Tus-Extension")!
    /// `Tus-Max-Size`: the largest upload accepted (OPTIONS).
    static let tusMaxSize = Self("Tus-Max-Size")!
    /// `Tus-Checksum-Algorithm`: the checksum algorithms accepted (OPTIONS).
    static let tusChecksumAlgorithm = Self("Tus-Checksum-Algorithm")!
    /// `Upload-Offset`: bytes received so far.
    static let uploadOffset = Self("Upload-Offset")!
    /// `Upload-Length`: the upload's total size.
    static let uploadLength = Self("Upload-Length")!
    /// `Upload-Defer-Length: 1`: the size is not known yet.
    static let uploadDeferLength = Self("Upload-Defer-Length")!
    /// `Upload-Metadata`: comma-separated `key base64value` pairs.
    static let uploadMetadata = Self("Upload-Metadata")!
    /// `Upload-Checksum`: `algorithm base64digest` of a PATCH body.
    static let uploadChecksum = Self("Upload-Checksum")!
    /// `Upload-Expires`: when an unfinished upload is removed (an HTTP date).
    static let uploadExpires = Self("Upload-Expires")!
}

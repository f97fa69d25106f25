/// The tus 1.0 resumable upload protocol's constants (https://tus.io/protocols/resumable-upload); its header
/// names are in `HTTPField.Name+Tus.swift`.
package enum TusProtocol {
    /// The only protocol version served.
    package static let version = "1.0.0"
    /// The extensions served, in `Tus-Extension` order.
    package static let extensions = [
        "creation", "creation-with-upload", "creation-defer-length", "termination", "checksum", "expiration",
    ]
    /// The media type of a PATCH body (and of a creation-with-upload body).
    package static let offsetStreamType = "application/offset+octet-stream"
}

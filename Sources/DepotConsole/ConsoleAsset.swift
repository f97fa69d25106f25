import Crypto
import DepotCore

/// One file of the publisher's console, built into the binary: its name under `/console/`, its media type and
/// its bytes, with a strong validator made from the bytes.
package struct ConsoleAsset: Sendable {
    /// The file's name under `/console/` (`app.js`); the page itself is `index.html`.
    package let name: String
    /// The `Content-Type` it is served with.
    package let contentType: String
    /// The file's bytes.
    package let bytes: [UInt8]
    /// A strong ETag: the first 16 bytes of the SHA-256 of `bytes`, in hex and quoted.
    package let etag: String

    /// An asset of `text`, encoded as UTF-8.
    package init(name: String, contentType: String, text: String) {
        self.name = name
        self.contentType = contentType
        self.bytes = Array(text.utf8)
        let digest = SHA256.hash(data: bytes).prefix(16)
        self.etag = "\"" + Hex.lowercase(digest) + "\""
    }
}

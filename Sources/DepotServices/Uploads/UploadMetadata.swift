import Foundation

/// A checked `Upload-Metadata` header (tus 1.0 "Upload-Metadata"): comma-separated pairs of a key and an
/// optional base64 value, separated by one space.
///
/// Strict: an empty or non-ASCII key, a key with a space or a comma, a value that is not canonical
/// standard base64, or a key given twice is refused (400). Spaces around a comma are allowed.
package struct UploadMetadata {
    /// The pairs in header order; a value is nil when only the key was sent.
    package let pairs: [(key: String, value: [UInt8]?)]

    /// Most bytes a header may hold.
    static let maxHeaderBytes = 4096

    /// Parses a header value (the empty string is no metadata).
    package init(header: String) throws(UploadError) {
        guard header.utf8.count <= Self.maxHeaderBytes else {
            throw .badMetadata("Upload-Metadata is longer than \(Self.maxHeaderBytes) bytes")
        }
        var pairs: [(key: String, value: [UInt8]?)] = []
        var keys: Set<String> = []
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty {
            for element in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
                let item = element.trimmingCharacters(in: .whitespaces)
                let parts = item.split(separator: " ", omittingEmptySubsequences: false)
                guard let key = parts.first, !key.isEmpty, parts.count <= 2 else {
                    throw .badMetadata("an Upload-Metadata pair is not `key` or `key base64value`")
                }
                guard key.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F }) else {
                    throw .badMetadata("an Upload-Metadata key holds a character other than visible ASCII")
                }
                guard keys.insert(String(key)).inserted else {
                    throw .badMetadata("the Upload-Metadata key `\(key)` is given twice")
                }
                var value: [UInt8]?
                if parts.count == 2 {
                    let encoded = String(parts[1])
                    guard !encoded.isEmpty, let data = Data(base64Encoded: encoded),
                        data.base64EncodedString() == encoded
                    else {
                        throw .badMetadata("the Upload-Metadata value of `\(key)` is not valid base64")
                    }
                    value = Array(data)
                }
                pairs.append((String(key), value))
            }
        }
        self.pairs = pairs
    }

    /// The value of `key` as UTF-8 text, if present and valid.
    package func text(_ key: String) -> String? {
        guard let value = pairs.first(where: { $0.key == key })?.value else { return nil }
        return String(validating: value, as: UTF8.self)
    }
}

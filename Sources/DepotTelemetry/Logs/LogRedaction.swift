import Logging

/// Keeps secrets out of log lines: every message and metadata value goes through here before it is written.
///
/// Words shaped like a secret Depot hands out or accepts are replaced, wherever they appear: a signed JWS
/// (App Store transactions and notifications, `eyJ...`), a grant (`g1.<key>.<expiry>.<transaction>.<mac>`),
/// a finish token (`f1.<key>.<mac>`), a publisher key (`dpk_...`), and whatever follows `Bearer` (admin and
/// metrics tokens). Metadata whose key names a secret (`authorization`, `token`, `grant`, `secret`,
/// `password`, `signed...`, `jws`) is replaced whole.
package enum LogRedaction {
    /// Substrings of metadata keys whose values are never written.
    package static let secretKeyParts = ["authorization", "token", "grant", "secret", "password", "signed", "jws"]

    /// `text` with every secret-shaped word replaced by `[redacted <kind>]`.
    package static func redact(_ text: String) -> String {
        // Fast path: most lines hold nothing that could be a secret.
        guard mayHoldSecret(text) else { return text }
        var output = ""
        output.reserveCapacity(text.utf8.count)
        var afterBearer = false
        var word = ""
        func flush() {
            guard !word.isEmpty else { return }
            if afterBearer {
                output += "[redacted token]"
                afterBearer = false
            } else if let kind = secretKind(word) {
                output += "[redacted \(kind)]"
            } else {
                output += word
                afterBearer = word.lowercased() == "bearer"
            }
            word = ""
        }
        for character in text {
            if isWordCharacter(character) {
                word.append(character)
                continue
            }
            flush()
            // `Bearer TOKEN`: the token is the next word, after spaces only.
            if character != " " { afterBearer = false }
            output.append(character)
        }
        flush()
        return output
    }

    /// The metadata with secrets replaced, by key and by shape.
    package static func redact(_ metadata: Logger.Metadata) -> Logger.Metadata {
        var redacted: Logger.Metadata = [:]
        for (key, value) in metadata { redacted[key] = redact(value, key: key) }
        return redacted
    }

    /// One value, replaced whole when `key` names a secret.
    package static func redact(_ value: Logger.MetadataValue, key: String?) -> Logger.MetadataValue {
        if let key, isSecretKey(key) { return .string("[redacted]") }
        switch value {
        case .string(let text): return .string(redact(text))
        case .stringConvertible(let convertible): return .string(redact(convertible.description))
        case .dictionary(let dictionary): return .dictionary(redact(dictionary))
        case .array(let values): return .array(values.map { redact($0, key: nil) })
        }
    }

    package static func isSecretKey(_ key: String) -> Bool {
        let lowered = key.lowercased()
        return secretKeyParts.contains { lowered.contains($0) }
    }

    /// The kind of secret `word` looks like, or nil.
    package static func secretKind(_ word: String) -> String? {
        let dots = word.utf8.lazy.filter { $0 == UInt8(ascii: ".") }.count
        if word.hasPrefix("eyJ"), word.utf8.count >= 10 { return "jws" }
        if word.hasPrefix("g1."), dots >= 4 { return "grant" }
        if word.hasPrefix("f1."), dots >= 2 { return "finish token" }
        if word.hasPrefix("dpk_"), word.utf8.count > 4 { return "publisher key" }
        return nil
    }

    /// Letters, digits and the characters of base64url and of the tokens' separators.
    private static func isWordCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        switch ascii {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"), UInt8(ascii: "+"):
            return true
        default:
            return false
        }
    }

    private static func mayHoldSecret(_ text: String) -> Bool {
        text.contains("eyJ") || text.contains("g1.") || text.contains("f1.") || text.contains("dpk_")
            || text.lowercased().contains("bearer")
    }
}

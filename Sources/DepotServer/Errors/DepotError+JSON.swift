extension DepotError {
    /// The error as Depot's JSON error body: `{"error": {"code": "...", "message": "..."}}`.
    package var jsonBody: String {
        "{\"error\":{\"code\":\(JSONText.quoted(code)),\"message\":\(JSONText.quoted(message))}}"
    }
}

/// Minimal JSON text helpers for the few bodies written without an encoder.
enum JSONText {
    /// A JSON string literal for `text`, escaping quotes, backslashes and control characters (RFC 8259 §7).
    static func quoted(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
        return out
    }
}

extension DepotError {
    /// The error as Depot's JSON error body: `{"error": {"code": "...", "message": "..."}}`.
    package var jsonBody: String { jsonBody(requestId: nil) }

    /// The body with the id of the request it answers (`error.requestId`), when there is one.
    package func jsonBody(requestId: String?) -> String {
        let id = requestId.map { ",\"requestId\":\(JSONText.quoted($0))" } ?? ""
        return "{\"error\":{\"code\":\(JSONText.quoted(code)),\"message\":\(JSONText.quoted(message))\(id)}}"
    }
}

/// Minimal JSON text helpers for the few bodies written without an encoder.
package enum JSONText {
    /// A JSON string literal for `text`, escaping quotes, backslashes and control characters (RFC 8259 §7).
    package static func quoted(_ text: String) -> String {
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

/// Percent-encoding as Signature Version 4 asks (RFC 3986): the unreserved characters `A-Z a-z 0-9 - . _ ~` stay,
/// every other byte of the UTF-8 form becomes `%XX` with upper-case hex digits.
package enum SigV4Encoding {
    /// One query name or value, or one path segment: `/` is encoded too.
    package static func component(_ text: String) -> String {
        encode(text, keepingSlash: false)
    }

    /// An object key as a path: each segment encoded, the `/` between them kept (S3 encodes a key once).
    package static func path(_ text: String) -> String {
        encode(text, keepingSlash: true)
    }

    private static func encode(_ text: String, keepingSlash: Bool) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: "/") where keepingSlash:
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

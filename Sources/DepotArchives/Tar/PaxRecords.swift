/// The records of a pax extended header (POSIX.1-2001 `pax` "extended header"): `"%d %s=%s\n"`, the
/// decimal length counting the whole record. Only `path`, `linkpath` and `size` change how an entry is read.
struct PaxRecords {
    /// The `path` record's value, raw.
    var path: [UInt8]?
    /// The `size` record's value.
    var size: Int64?
    /// Whether a `linkpath` record was present.
    var hasLinkPath = false

    /// Parses a whole extended header's data.
    init(_ data: [UInt8], shown: String) throws(ArchiveError) {
        var index = 0
        while index < data.count {
            // Trailing NUL padding some writers leave is not a record.
            if data[index...].allSatisfy({ $0 == 0 }) { break }
            guard let space = data[index...].firstIndex(of: 0x20),
                let length = Int(String(decoding: data[index..<space], as: UTF8.self)),
                length > space - index + 1, length <= data.count - index, data[index + length - 1] == 0x0A,
                let equals = data[(space + 1)..<(index + length)].firstIndex(of: 0x3D)
            else {
                throw ArchiveError(.malformed, entry: shown, "a pax extended header record is malformed")
            }
            let key = String(decoding: data[(space + 1)..<equals], as: UTF8.self)
            let value = Array(data[(equals + 1)..<(index + length - 1)])
            switch key {
            case "path":
                path = value
            case "linkpath":
                hasLinkPath = true
            case "size":
                guard let number = Int64(String(decoding: value, as: UTF8.self)), number >= 0 else {
                    throw ArchiveError(.malformed, entry: shown, "a pax size record is not a number")
                }
                size = number
            default:
                break
            }
            index += length
        }
    }
}

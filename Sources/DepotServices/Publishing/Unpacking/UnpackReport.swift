import DepotArchives
import Foundation

/// What `depot unpack-archive` tells the server that started it, as one line of JSON on standard output:
/// `{"entries": N}` with exit status 0 after an extraction, `{"code": "...", "message": "..."}` with exit
/// status `refusedStatus` after a refusal.
package enum UnpackReport: Equatable, Sendable {
    /// The archive was extracted: this many entries.
    case extracted(entries: Int)
    /// The archive was refused.
    case refused(ArchiveError)

    /// The exit status of a refusal (any other nonzero status is a failure of the unpacker itself).
    package static let refusedStatus: Int32 = 2

    private struct Wire: Codable {
        var entries: Int?
        var code: String?
        var entry: String?
        var message: String?
    }

    /// The report as one line of JSON.
    package var line: String {
        let wire: Wire =
            switch self {
            case .extracted(let entries): Wire(entries: entries)
            case .refused(let error): Wire(code: error.code.rawValue, entry: error.entry, message: error.message)
            }
        let data = (try? JSONEncoder().encode(wire)) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads a report; nil when the bytes are not one.
    package static func decode(_ data: Data) -> UnpackReport? {
        guard let wire = try? JSONDecoder().decode(Wire.self, from: data) else { return nil }
        if let entries = wire.entries { return .extracted(entries: entries) }
        guard let code = wire.code.flatMap(ArchiveError.Code.init(rawValue:)), let message = wire.message else { return nil }
        return .refused(ArchiveError(code, entry: wire.entry, message))
    }
}

// Shared by the test target and by the libFuzzer build of `Fuzz/run.sh`, which compiles this file into one
// module with the tus header parsers' sources (hence no import of DepotServer there).
import Foundation

#if !DEPOT_FUZZ_SINGLE_MODULE
import DepotAPI
@testable import DepotServer
@testable import DepotServices
#endif

/// Turns arbitrary bytes into the tus headers of a creation and of a PATCH, runs every tus header parser and
/// rule on them, and lists every broken invariant (an empty list: the input is handled correctly).
///
/// Input layout: byte 0 shapes the upload a PATCH goes to (bit 0: its offset is the `Upload-Offset` sent;
/// bit 1: its length is deferred; bits 2-4: `Tus-Max-Size`; bits 5-7: the request's Content-Length), byte 1
/// its offset when not the one sent, byte 2 the bytes still missing; the rest is header lines separated by
/// `\n`, the first byte of each picking the field.
enum TusFuzzHarness {
    static let names = [
        "Upload-Metadata", "Upload-Checksum", "Upload-Length", "Upload-Defer-Length", "Upload-Offset",
        "Tus-Resumable", "Content-Type",
    ]
    static let maxSizes: [Int64] = [0, 1, 100, 1000, 1 << 30, 1 << 40, 999_999_999_999_999_999, Int64.max]

    /// The invariants broken for `data`, described.
    static func violations(_ data: [UInt8]) -> [String] {
        let shape = data.first ?? 0
        let pickedOffset = Int64(data.count > 1 ? data[1] : 0)
        let missing = Int64(data.count > 2 ? data[2] : 0) * 37
        var fields: [String: String] = [:]
        var values: [String] = []
        if data.count > 3 {
            for line in data[3...].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
                let value = String(decoding: line.dropFirst(), as: UTF8.self)
                fields[names[Int(line.first ?? 0) % names.count]] = value
                values.append(value)
            }
        }
        var found: [String] = []
        for value in values { found += parserViolations(value) }
        let maxSize = maxSizes[Int(shape >> 2 & 7)]
        found += creationViolations(
            uploadLength: fields["Upload-Length"], deferLength: fields["Upload-Defer-Length"],
            metadata: fields["Upload-Metadata"], maxSize: maxSize)
        // The upload as the ledger would hold it: offset <= length <= maxSize (a deferred length: offset <= maxSize).
        let sent = fields["Upload-Offset"].flatMap { try? UploadRules.decimal($0, header: "Upload-Offset") }
        let offset = min(shape & 1 == 1 ? sent ?? pickedOffset : pickedOffset, maxSize)
        let length: Int64? = shape & 2 == 2 ? nil : min(offset + missing, maxSize)
        let contentLengths: [Int64?] = [nil, 0, 1, 5, missing, missing + 1, 1 << 40, Int64.max]
        found += writeViolations(
            offset: offset, length: length, contentType: fields["Content-Type"], uploadOffset: fields["Upload-Offset"],
            uploadLength: fields["Upload-Length"], contentLength: contentLengths[Int(shape >> 5)], maxSize: maxSize)
        return found
    }

    /// A refusal is a 4xx with a message; anything else is a violation.
    static func refusalViolations(_ error: DepotError, _ what: String) -> [String] {
        (400..<500).contains(error.status) && !error.message.isEmpty ? [] : ["\(what) refused with \(error)"]
    }

    /// The same, for an upload's refusal as the server answers it.
    static func refusalViolations(_ error: UploadError, _ what: String) -> [String] {
        refusalViolations(DepotError(error), what)
    }

    /// Each header parser takes any value; what it accepts is what the header says.
    static func parserViolations(_ value: String) -> [String] {
        var found: [String] = []
        do {
            let metadata = try UploadMetadata(header: value)
            var keys: Set<String> = []
            for (key, _) in metadata.pairs {
                if key.isEmpty || !key.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
                    || key.contains(",")
                {
                    found.append("metadata key \(key.debugDescription) accepted")
                }
                if !keys.insert(key).inserted { found.append("metadata key \(key.debugDescription) accepted twice") }
                _ = metadata.text(key)
            }
            // Written back canonically, the pairs read the same.
            let written = metadata.pairs.map { pair in
                pair.value.map { pair.key + " " + Data($0).base64EncodedString() } ?? pair.key
            }.joined(separator: ",")
            if let again = try? UploadMetadata(header: written) {
                if again.pairs.map(\.key) != metadata.pairs.map(\.key) || again.pairs.map(\.value) != metadata.pairs.map(\.value) {
                    found.append("metadata \(value.debugDescription) reads differently once written back")
                }
            } else {
                found.append("metadata \(value.debugDescription) is refused once written back as \(written.debugDescription)")
            }
        } catch {
            found += refusalViolations(error, "Upload-Metadata")
        }
        do {
            let checksum = try UploadChecksum(header: value)
            if checksum.expected.count != checksum.algorithm.digestBytes {
                found.append("checksum of \(checksum.expected.count) bytes accepted for \(checksum.algorithm)")
            }
        } catch {
            found += refusalViolations(error, "Upload-Checksum")
        }
        do {
            let number = try UploadRules.decimal(value, header: "Upload-Offset")
            var digits = Substring(value.trimmingSpaces)
            while digits.count > 1, digits.first == "0" { digits = digits.dropFirst() }
            if number < 0 || String(number) != digits {
                found.append("decimal \(value.debugDescription) read as \(number)")
            }
        } catch {
            found += refusalViolations(error, "a tus number")
        }
        if UploadRules.isServedVersion(value), value.trimmingSpaces != TusProtocol.version {
            found.append("Tus-Resumable \(value.debugDescription) accepted")
        }
        if UploadRules.isOffsetStream(value),
            !value.lowercased().trimmingSpaces.hasPrefix(TusProtocol.offsetStreamType)
        {
            found.append("Content-Type \(value.debugDescription) taken for \(TusProtocol.offsetStreamType)")
        }
        return found
    }

    /// A creation is accepted only with one length field, within `maxSize`.
    static func creationViolations(
        uploadLength: String?, deferLength: String?, metadata: String?, maxSize: Int64
    ) -> [String] {
        do {
            let creation = try UploadRules.creation(
                uploadLength: uploadLength, deferLength: deferLength, metadata: metadata, maxSize: maxSize)
            var found: [String] = []
            if (uploadLength == nil) == (deferLength == nil) {
                found.append("creation accepted with \(uploadLength.debugDescription) and \(deferLength.debugDescription)")
            }
            if let length = creation.length, !(0...maxSize).contains(length) {
                found.append("creation of \(length) bytes accepted under Tus-Max-Size \(maxSize)")
            }
            if creation.length == nil, deferLength == nil { found.append("a deferred creation without Upload-Defer-Length") }
            if creation.metadata != (metadata?.trimmingSpaces ?? "") { found.append("creation metadata changed") }
            return found
        } catch {
            return refusalViolations(error, "creation")
        }
    }

    /// A PATCH may write only from the upload's offset, never past its length or `maxSize`.
    static func writeViolations(
        offset: Int64, length: Int64?, contentType: String?, uploadOffset: String?, uploadLength: String?,
        contentLength: Int64?, maxSize: Int64
    ) -> [String] {
        do {
            let write = try UploadRules.write(
                offset: offset, length: length, contentType: contentType, uploadOffset: uploadOffset,
                uploadLength: uploadLength, contentLength: contentLength, maxSize: maxSize)
            var found: [String] = []
            if write.start != offset { found.append("write starts at \(write.start), not at the offset \(offset)") }
            if write.limit < 0 { found.append("write limit \(write.limit)") }
            let end = (length ?? write.setLength ?? maxSize)
            if write.start.addingReportingOverflow(write.limit).partialValue != end || end > maxSize {
                found.append(
                    "write of \(write.limit) bytes from \(write.start) for length \(String(describing: length)), Tus-Max-Size \(maxSize)")
            }
            if let contentLength, contentLength > write.limit { found.append("Content-Length \(contentLength) over limit \(write.limit)") }
            if let setLength = write.setLength, length != nil || setLength < offset || setLength > maxSize {
                found.append("write sets length \(setLength) on an upload of \(String(describing: length))")
            }
            if !UploadRules.isOffsetStream(contentType) {
                found.append("write accepted with Content-Type \(String(describing: contentType))")
            }
            return found
        } catch {
            return refusalViolations(error, "PATCH")
        }
    }
}

import DepotArchives
import Foundation

/// Runs `EXECUTABLE unpack-archive` on one archive and reads its report: one line of JSON on standard
/// output, `{"entries": N}` after an extraction or `{"code": "...", "message": "..."}` after a refusal
/// (`UnpackReport`). A child that stops by a signal, exits otherwise or reports nothing readable is an
/// `unpackerFailed`; whatever it left in the directory is the caller's to remove.
struct ChildUnpack {
    let executable: String

    /// The arguments `depot unpack-archive` takes for one archive.
    static func arguments(_ archive: String, into directory: String, limits: ArchiveLimits) -> [String] {
        [
            "unpack-archive", archive, "--into", directory, "--max-entries", "\(limits.maxEntries)",
            "--max-entry-bytes", "\(limits.maxEntryBytes)", "--max-total-bytes", "\(limits.maxTotalBytes)",
            "--max-compression-ratio", "\(limits.maxCompressionRatio)",
            "--ratio-check-after-bytes", "\(limits.ratioCheckAfterBytes)", "--max-header-bytes", "\(limits.maxHeaderBytes)",
            "--max-path-bytes", "\(limits.maxPathBytes)",
        ]
    }

    func run(_ archive: String, into directory: String, limits: ArchiveLimits) throws(UnpackFailure) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = Self.arguments(archive, into: directory, limits: limits)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw .unpackerFailed("the unpacker could not be started")
        }
        // The report is one short line; reading to the end also waits for the child to close its output.
        let report = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if process.terminationReason == .uncaughtSignal {
            throw .unpackerFailed("the unpacker stopped with signal \(process.terminationStatus)")
        }
        switch UnpackReport.decode(report) {
        case .extracted where process.terminationStatus == 0:
            return
        case .refused(let error) where process.terminationStatus == UnpackReport.refusedStatus:
            throw .refused(error)
        default:
            throw .unpackerFailed("the unpacker exited with status \(process.terminationStatus) and no report")
        }
    }
}

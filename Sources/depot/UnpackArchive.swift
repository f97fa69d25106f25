import ArgumentParser
import DepotArchives
import DepotServer
import DepotServices

/// `depot unpack-archive ARCHIVE --into DIR ...`: extracts one uploaded archive within the given limits and
/// reports on standard output (`UnpackReport`). The server runs it as a child process for every upload, so
/// that a defect in a parser stops this process, never the server. Not for people: hidden from help.
struct UnpackArchive: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpack-archive", abstract: "Extract one archive for the server (internal).", shouldDisplay: false)

    @Argument(help: "The archive (zip, tar or tar.gz).")
    var archive: String

    @Option(help: "The directory to extract into (created; must be empty if it exists).")
    var into: String

    @Option var maxEntries = ArchiveLimits().maxEntries
    @Option var maxEntryBytes = ArchiveLimits().maxEntryBytes
    @Option var maxTotalBytes = ArchiveLimits().maxTotalBytes
    @Option var maxCompressionRatio = ArchiveLimits().maxCompressionRatio
    @Option var ratioCheckAfterBytes = ArchiveLimits().ratioCheckAfterBytes
    @Option var maxHeaderBytes = ArchiveLimits().maxHeaderBytes
    @Option var maxPathBytes = ArchiveLimits().maxPathBytes

    func run() throws {
        let limits = ArchiveLimits(
            maxEntries: maxEntries, maxEntryBytes: maxEntryBytes, maxTotalBytes: maxTotalBytes,
            maxCompressionRatio: maxCompressionRatio, ratioCheckAfterBytes: ratioCheckAfterBytes,
            maxHeaderBytes: maxHeaderBytes, maxPathBytes: maxPathBytes)
        do throws(ArchiveError) {
            let entries = try Archive.extract(archive, into: into, limits: limits)
            print(UnpackReport.extracted(entries: entries.count).line)
        } catch {
            print(UnpackReport.refused(error).line)
            throw ExitCode(UnpackReport.refusedStatus)
        }
    }
}

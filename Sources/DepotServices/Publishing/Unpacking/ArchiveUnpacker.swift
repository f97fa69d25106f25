import DepotArchives

/// Where an uploaded archive is unpacked: in this process, or in a child process of its own (the same
/// `depot` binary, `depot unpack-archive`), so that a defect in a parser (a trap, a runaway allocation) costs
/// one version job, never the server and every buyer it serves.
///
/// `depot serve` unpacks in a child; an application built in a test process, which has no `depot` binary
/// to run, unpacks in process unless the test names the binary.
package enum ArchiveUnpacker: Sendable {
    /// `Archive.extract` on a Dispatch thread of this process.
    case inProcess
    /// `EXECUTABLE unpack-archive ...` in a child process, which reports on standard output.
    case childProcess(executable: String)

    /// Unpacks `archive` into `directory` (which must not exist or be empty) within `limits`. Blocks: call
    /// it off the event loops and off the concurrency pool.
    func unpack(_ archive: String, into directory: String, limits: ArchiveLimits) throws(UnpackFailure) {
        switch self {
        case .inProcess:
            do throws(ArchiveError) {
                try Archive.extract(archive, into: directory, limits: limits)
            } catch {
                throw .refused(error)
            }
        case .childProcess(let executable):
            try ChildUnpack(executable: executable).run(archive, into: directory, limits: limits)
        }
    }
}

/// Why an archive was not unpacked.
package enum UnpackFailure: Error, Sendable, Equatable {
    /// The archive was read and refused: a typed reason from `DepotArchives`.
    case refused(ArchiveError)
    /// The child process could not be started, or stopped without a report (a signal, a trap).
    case unpackerFailed(String)

    /// For the job's failure reason: says what was wrong without naming paths on this machine.
    var reason: String {
        switch self {
        case .refused(let error): "the archive was refused: \(error.message)"
        case .unpackerFailed(let what): "the archive could not be read (\(what)); nothing was staged"
        }
    }
}

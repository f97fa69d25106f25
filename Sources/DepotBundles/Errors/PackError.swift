import DepotCore

/// Why a content pack was refused, or could not be read.
///
/// `code` is stable (clients and scripts match on it); `message` is for people and names the offending
/// entry by its path inside the pack (`Contents/images/a.png`), never by a server path.
package struct PackError: CodedError, Equatable {
    /// A stable, machine-readable reason. A struct over a private enum, so codes can be added.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String {
            case symlink = "symlink"
            case specialFile = "special-file"
            case unsafePath = "unsafe-path"
            case badName = "bad-name"
            case caseCollision = "case-collision"
            case emptyPack = "empty-pack"
            case tooManyFiles = "too-many-files"
            case fileTooLarge = "file-too-large"
            case packTooLarge = "pack-too-large"
            case badManifest = "bad-manifest"
            case unexpectedEntry = "unexpected-entry"
            case packChanged = "pack-changed"
            case unreadable = "unreadable"
            case deltaMismatch = "delta-mismatch"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A symbolic link (links are never followed).
        package static let symlink = Code(.symlink)
        /// A device, FIFO, socket or anything else that is not a regular file or a directory.
        package static let specialFile = Code(.specialFile)
        /// An absolute path, a `..` or `.` component, an empty component, a backslash or a NUL.
        package static let unsafePath = Code(.unsafePath)
        /// A name that is not valid UTF-8, holds control characters, or is too long.
        package static let badName = Code(.badName)
        /// Two names in one directory that are equal when case (and Unicode normalization) is ignored.
        package static let caseCollision = Code(.caseCollision)
        /// No files under `Contents/`, or no `Contents/` at all.
        package static let emptyPack = Code(.emptyPack)
        /// More files than `PackLimits.maxFileCount`.
        package static let tooManyFiles = Code(.tooManyFiles)
        /// A file larger than `PackLimits.maxFileSize`.
        package static let fileTooLarge = Code(.fileTooLarge)
        /// Files totalling more than `PackLimits.maxTotalSize`.
        package static let packTooLarge = Code(.packTooLarge)
        /// `pack.json` missing, not JSON, missing a field, or with a bad value.
        package static let badManifest = Code(.badManifest)
        /// Something at the pack root other than `pack.json` and `Contents/`.
        package static let unexpectedEntry = Code(.unexpectedEntry)
        /// A file changed (size, modification time, type) between reading the pack and bundling it.
        package static let packChanged = Code(.packChanged)
        /// An entry could not be opened or read.
        package static let unreadable = Code(.unreadable)
        /// A delta was asked between packs that are not versions of the same content.
        package static let deltaMismatch = Code(.deltaMismatch)

        /// The stable string form, e.g. `"case-collision"`.
        package var rawValue: String { base.rawValue }
        /// The same as `rawValue`.
        package var description: String { base.rawValue }
    }

    /// The stable reason.
    package let code: Code
    /// A sentence for people, naming the offending entry.
    package let message: String

    /// An error with this code and message (which names the entry, never a server path).
    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

}

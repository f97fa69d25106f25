/// A source of bytes read front to back: the archive file itself, or what a gzip stream inflates to.
protocol ByteStream: AnyObject {
    /// Fills as much of `buffer` as it can; returns the count, 0 only at the end of the stream.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int
}

extension ByteStream {
    /// Fills `buffer` whole unless the stream ends first; returns the count.
    func readFully(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        var done = 0
        while done < buffer.count {
            let count = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]))
            if count == 0 { break }
            done += count
        }
        return done
    }
}

/// The archive file read front to back.
final class FileStream: ByteStream {
    private let file: InputFile
    private var offset: Int64 = 0

    init(_ file: InputFile) { self.file = file }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        let count = try file.read(at: offset, into: buffer)
        offset += Int64(count)
        return count
    }
}

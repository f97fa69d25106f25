/// What a gzip file inflates to, read front to back, judged as it is produced: the ratio of output to
/// compressed input consumed may not pass `ArchiveLimits.maxCompressionRatio` (an archive bomb is
/// refused after inflating little more than `ratioCheckAfterBytes`, whatever it claims).
///
/// Several gzip members one after the other (as `cat a.gz b.gz` makes) are one stream, as gzip reads them.
final class GzipStream: ByteStream {
    private let source: any ByteStream
    private let inflater: Inflater
    private let limits: ArchiveLimits
    private var input = [UInt8](repeating: 0, count: 64 << 10)
    private var inputStart = 0
    private var inputEnd = 0
    private var sourceEnded = false
    private var memberEnded = false
    private var finished = false
    private var tally = ExpansionTally(of: "the gzip stream")

    init(source: any ByteStream, limits: ArchiveLimits) throws(ArchiveError) {
        self.source = source
        self.limits = limits
        inflater = try Inflater(.gzip)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        guard !finished, buffer.count > 0 else { return 0 }
        while true {
            if inputStart == inputEnd && !sourceEnded { try refill() }
            if memberEnded {
                // Another member follows only if more bytes do; anything else after a member is refused.
                if inputStart == inputEnd {
                    finished = true
                    return 0
                }
                guard input[inputStart] == 0x1F else {
                    throw ArchiveError(.malformed, "bytes follow the end of the gzip stream")
                }
                inflater.reset()
                memberEnded = false
            }
            if inputStart == inputEnd && sourceEnded {
                throw ArchiveError(.truncated, "the gzip stream ends before its last block and trailer")
            }
            let step = try input.withBytes { raw throws(ArchiveError) in
                try inflater.step(UnsafeRawBufferPointer(rebasing: raw[inputStart..<inputEnd]), into: buffer, entry: nil)
            }
            inputStart += step.consumed
            if step.ended { memberEnded = true }
            try tally.add(consumed: step.consumed, produced: step.produced, limits: limits, entry: nil)
            if step.produced > 0 { return step.produced }
            if step.consumed == 0 && !step.ended && inputStart < inputEnd {
                throw ArchiveError(.malformed, "the gzip stream makes no progress")
            }
        }
    }

    private func refill() throws(ArchiveError) {
        if inputStart > 0 && inputStart == inputEnd {
            inputStart = 0
            inputEnd = 0
        }
        let count = try input.withMutableBytes { raw throws(ArchiveError) in
            try source.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[inputEnd...]))
        }
        if count == 0 { sourceEnded = true }
        inputEnd += count
    }
}

/// Drives a bundle's entries through the worker pool and into the ZIP, in order.
///
/// The caller's thread opens each entry (so descriptors open in the pack's order, and at most `window`
/// of them at a time), cuts it into chunk jobs and submits them; worker threads read and compress; the
/// caller's thread takes outputs back in submission order and lays them out. At most `window` chunks are
/// outstanding, so memory is bounded by about `window` + `threads` chunk buffers whatever the pack's size.
struct BundlePipeline {
    let level: Int
    let policy: CompressionPolicy
    let parallelism: Int

    /// Chunks outstanding per worker thread: enough that a worker rarely waits for the writer.
    static let chunksInFlightPerThread = 4

    /// Writes every entry `next` yields (until it yields `nil`) into `zip`.
    func run(into zip: ZipStreamWriter, entries next: () throws -> EntrySource?) throws {
        let level = level
        let policy = policy
        let threads = parallelism > 1 ? parallelism : 0
        let window = max(1, threads * Self.chunksInFlightPerThread)
        let arrays = ByteArrayPool(limit: window + threads + 1)
        let pool = OrderedWorkPool<ChunkJob, ChunkResult>(threads: threads, window: window) {
            let compressor = ChunkCompressor(level: level, policy: policy, arrays: arrays)
            return { job in ChunkResult(job: job, output: compressor.compress(job)) }
        }
        defer { pool.shutdown() }

        func takeOne() throws {
            guard let result = pool.next() else { return }
            let output = try result.output.get()
            try zip.add(result.job, output)
            arrays.recycle(output.bytes)
            if result.job.isLast { try result.job.source.checkUnchanged() }
        }

        while let source = try next() {
            for job in ChunkJob.chunks(of: source) {
                while pool.isFull { try takeOne() }
                pool.submit(job)
            }
        }
        while !pool.isEmpty { try takeOne() }
    }
}

/// A chunk job with what came of it.
struct ChunkResult: Sendable {
    let job: ChunkJob
    let output: Result<ChunkOutput, any Error>
}

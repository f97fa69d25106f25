import DepotTestSupport
import Foundation
import Synchronization
import Testing

@testable import DepotBundles

@Suite struct ParallelBundleTests {
    /// Entries on both sides of every chunk boundary: empty, tiny, exactly one chunk, one chunk and a
    /// byte, several chunks of text, of noise (stored), and of noise then text (probe says store), plus a
    /// crowd of small files so many entries are in flight at once.
    static func mixedFiles() -> [(String, [UInt8])] {
        var random = SeededBytes(seed: 42)
        let mib = ChunkCompressor.chunkSize
        var files = PackFixture.mixedFiles(seed: 7)
        files += [
            ("chunks/exactly-one.txt", TestData.text(count: mib, seed: 11)),
            ("chunks/one-and-a-byte.txt", TestData.text(count: mib + 1, seed: 12)),
            ("chunks/several.txt", TestData.text(count: 5 * mib + 12345, seed: 13)),
            ("chunks/noise.bin", random.bytes(3 * mib + 7)),
            ("chunks/noise-then-text.bin", random.bytes(mib) + TestData.text(count: 2 * mib, seed: 14)),
            ("chunks/text-then-noise.bin", TestData.text(count: 2 * mib, seed: 15) + random.bytes(mib)),
        ]
        for index in 0..<150 {
            files.append(("small/\(index).txt", TestData.text(count: 100 + index * 97, seed: UInt64(100 + index))))
        }
        return files
    }

    @Test(arguments: [(2, 6), (3, 6), (8, 6), (2, 1), (2, 9), (4, 0)])
    func parallelBytesEqualSequentialBytes(parallelism: Int, level: Int) async throws {
        try await withTemporaryDirectory { dir in
            let pack = try PackReader.read(directory: PackFixture.write(at: dir + "/pack", files: Self.mixedFiles()))
            let sequential = try BundleWriter(compressionLevel: level, parallelism: 1).write(pack, to: dir + "/seq.zip")
            let parallel = try BundleWriter(compressionLevel: level, parallelism: parallelism).write(
                pack, to: dir + "/par.zip")
            #expect(parallel == sequential)
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: dir + "/seq.zip"))
                    == Data(contentsOf: URL(fileURLWithPath: dir + "/par.zip")))
        }
    }

    /// The chunked deflate streams are read back by real readers, byte for byte, and the entries that
    /// should be stored are.
    @Test func chunkedEntriesAreReadByRealReaders() async throws {
        try await withTemporaryDirectory { dir in
            let packDirectory = try PackFixture.write(at: dir + "/pack", files: Self.mixedFiles())
            let record = try BundleWriter(parallelism: 2).write(
                PackReader.read(directory: packDirectory), to: dir + "/b.zip")
            #expect(record.size > 0)
            let unzip = try await ExternalTools.unzipTest(dir + "/b.zip")
            #expect(unzip.status == 0, "\(unzip.combined)")
            let report = try await ExternalTools.pythonCheck(zip: dir + "/b.zip", contents: packDirectory + "/Contents")
            #expect(report.count == 1 + Self.mixedFiles().count)
            #expect(report.stored.contains("Contents/chunks/noise.bin"))
            #expect(report.stored.contains("Contents/chunks/noise-then-text.bin"))
            for name in ["several.txt", "exactly-one.txt", "one-and-a-byte.txt", "text-then-noise.bin"] {
                #expect(report.deflated.contains("Contents/chunks/" + name))
            }
        }
    }

    /// Chunking costs little: a multi-chunk text entry is within 1% of one deflate stream over it at the same level
    /// (and the whole bundle reads back as the text, through Python's zipfile).
    @Test func chunkingCostsLittleCompression() async throws {
        try await withTemporaryDirectory { dir in
            let text = TestData.text(count: 6 * ChunkCompressor.chunkSize, seed: 5)
            let pack = try PackReader.read(directory: PackFixture.write(at: dir + "/pack", files: [("t.txt", text)]))
            let record = try BundleWriter(parallelism: 2).write(pack, to: dir + "/b.zip")
            var single: [UInt8] = []
            let deflater = try BlockDeflater(level: BundleWriter.defaultCompressionLevel, maximumInput: text.count)
            try text.withUnsafeBytes { try deflater.deflate($0, appendingTo: &single) }
            let overhead = record.size - 1200  // headers, ContentInfo.plist, central directory: well under this
            #expect(Double(overhead) < Double(single.count) * 1.01, "chunked \(overhead) vs single \(single.count)")
            let report = try await ExternalTools.pythonCheck(zip: dir + "/b.zip", contents: dir + "/pack/Contents")
            #expect(report.deflated.contains("Contents/t.txt"))
        }
    }

    /// A failure while chunks are in flight (a later file changed since the pack was read) stops the
    /// workers, leaves no file, and does not hang.
    @Test func failureWithChunksInFlightLeavesNothing() async throws {
        try await withTemporaryDirectory { dir in
            let files = [
                ("a-big.txt", TestData.text(count: 8 * ChunkCompressor.chunkSize, seed: 1)),
                ("z.txt", Array("last".utf8)),
            ]
            let packDirectory = try PackFixture.write(at: dir + "/pack", files: files)
            let pack = try PackReader.read(directory: packDirectory)
            try Data("changed".utf8).write(to: URL(fileURLWithPath: packDirectory + "/Contents/z.txt"))
            #expect(throws: PackError(.packChanged, "Contents/z.txt changed after the pack was read")) {
                try BundleWriter(parallelism: 2).write(pack, to: dir + "/b.zip")
            }
            #expect(!FileManager.default.fileExists(atPath: dir + "/b.zip"))
        }
    }

    @Test(arguments: [0, 1, 2, 5])
    func poolReturnsOutputsInOrderWithinTheWindow(threads: Int) async {
        let counters = Counters()
        // The pool's waits block the calling thread: the pool is driven from a thread of its own.
        let (outputs, emptied) = await OffPool.run { () -> ([Int], Bool) in
            let window = max(1, threads * 2)
            let pool = OrderedWorkPool<Int, Int>(threads: threads, window: window) {
                { job in
                    counters.start()
                    usleep(UInt32((job * 7919) % 5) * 200)
                    counters.end()
                    return job * job
                }
            }
            defer { pool.shutdown() }
            var outputs: [Int] = []
            for job in 0..<200 {
                while pool.isFull { outputs.append(pool.next()!) }
                pool.submit(job)
            }
            while let output = pool.next() { outputs.append(output) }
            return (outputs, pool.isEmpty)
        }
        #expect(outputs == (0..<200).map { $0 * $0 })
        #expect(emptied)
        #expect(counters.peak <= max(1, threads))
        #expect(counters.started == 200)
    }

    @Test func poolShutdownDropsQueuedJobsAndJoinsItsThreads() async {
        let counters = Counters()
        // Shutting down joins the pool's threads, and the opener sleeps: all of it on threads of their own.
        let (afterShutdown, runningAfterShutdown, startedLater) = await OffPool.run { () -> (Int, Int, Int) in
            // Each job holds its worker until the gate opens, which happens only once shutdown was asked for:
            // the queued jobs are still queued when the pool stops, however slow or loaded the machine.
            let gate = Atomic<Bool>(false)
            let shutdownAsked = Atomic<Bool>(false)
            let pool = OrderedWorkPool<Int, Int>(threads: 2, window: 50) {
                { job in
                    counters.start()
                    while !gate.load(ordering: .acquiring) { usleep(1000) }
                    counters.end()
                    return job
                }
            }
            for job in 0..<50 { pool.submit(job) }
            let opener = Thread {
                while !shutdownAsked.load(ordering: .acquiring) { usleep(1000) }
                usleep(100_000)
                gate.store(true, ordering: .releasing)
            }
            opener.start()
            shutdownAsked.store(true, ordering: .releasing)
            pool.shutdown()
            let afterShutdown = counters.started
            let running = counters.running
            usleep(20_000)
            return (afterShutdown, running, counters.started)
        }
        #expect(afterShutdown <= 2)
        #expect(runningAfterShutdown == 0)
        #expect(startedLater == afterShutdown)
    }
}

/// Counts jobs running at once, and the most that ever did.
private final class Counters: Sendable {
    private let state = Mutex((running: 0, peak: 0, started: 0))

    func start() {
        state.withLock {
            $0.running += 1
            $0.started += 1
            $0.peak = max($0.peak, $0.running)
        }
    }

    func end() { state.withLock { $0.running -= 1 } }

    var running: Int { state.withLock { $0.running } }
    var peak: Int { state.withLock { $0.peak } }
    var started: Int { state.withLock { $0.started } }
}

import DepotTestSupport
import Foundation
import Testing

@testable import DepotBundles

@Suite struct Zip64Tests {
    /// 70,000 entries: past the 65,535 a classic end record can count, so the ZIP64 end record and
    /// locator are written; unzip and Python's zipfile must read every entry.
    @Test func manyEntriesUseZip64EndRecords() async throws {
        try await withTemporaryDirectory { dir in
            let pack = dir + "/many"
            try PackFixture.write(at: pack, files: [])
            for group in 0..<70 {
                let directory = pack + "/Contents/g\(group)"
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                for index in 0..<1000 {
                    let fd = open(directory + "/f\(index).txt", O_CREAT | O_WRONLY | O_TRUNC, 0o644)
                    let text = Array("entry \(group)-\(index)\n".utf8)
                    _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                    close(fd)
                }
            }
            let limits = PackLimits(maxFileCount: 100_000, maxFileSize: 1 << 20, maxTotalSize: 1 << 30)
            let record = try BundleWriter().write(
                PackReader.read(directory: pack, limits: limits), to: dir + "/many.zip")

            let bytes = try Data(contentsOf: URL(fileURLWithPath: dir + "/many.zip"))
            #expect(Int64(bytes.count) == record.size)
            let tail = Array(bytes.suffix(98))
            #expect(tail[0..<4] == [0x50, 0x4B, 0x06, 0x06])  // ZIP64 end of central directory record
            #expect(tail[56..<60] == [0x50, 0x4B, 0x06, 0x07])  // ZIP64 locator
            #expect(tail[76..<80] == [0x50, 0x4B, 0x05, 0x06])  // end of central directory record

            let unzip = try await ExternalTools.unzipTest(dir + "/many.zip")
            #expect(unzip.status == 0, "\(unzip.combined.suffix(500))")
            let report = try await ExternalTools.pythonCheck(zip: dir + "/many.zip", contents: pack + "/Contents")
            #expect(report.count == 70_001)
            #expect(report.info["FileCount"] == .integer(70_000))
        }
    }

    /// A single entry past 4 GiB (a sparse file of zeros): deflated, for the ZIP64 sizes; stored, for
    /// those and for a later entry's offset and the central directory past 4 GiB. Slow (it reads and
    /// writes gigabytes), so it runs only with DEPOT_SLOW_TESTS=1.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["DEPOT_SLOW_TESTS"] == "1"), arguments: [1, 0])
    func hugeEntryUsesZip64Sizes(level: Int) async throws {
        try await withTemporaryDirectory { dir in
            let pack = try PackFixture.write(
                at: dir + "/huge", files: [("a.txt", Array("before\n".utf8)), ("z.txt", Array("after\n".utf8))])
            let fd = open(pack + "/Contents/huge.bin", O_CREAT | O_WRONLY | O_TRUNC, 0o644)
            #expect(ftruncate(fd, (4 << 30) + 12345) == 0)
            close(fd)
            let limits = PackLimits(maxFileCount: 10, maxFileSize: 8 << 30, maxTotalSize: 8 << 30)
            let record = try BundleWriter(compressionLevel: level).write(
                PackReader.read(directory: pack, limits: limits), to: dir + "/huge.zip"
            )
            #expect(level == 0 ? record.size > 4 << 30 : record.size < 1 << 30)
            let unzip = try await ExternalTools.unzipTest(dir + "/huge.zip")
            #expect(unzip.status == 0, "\(unzip.combined)")
            let python = try await ExternalTool.run(
                "/usr/bin/env",
                [
                    "python3", "-c",
                    """
                    import sys, zipfile
                    z = zipfile.ZipFile(sys.argv[1])
                    assert z.testzip() is None
                    assert z.getinfo("Contents/huge.bin").file_size == (4 << 30) + 12345
                    assert z.read("Contents/z.txt") == b"after\\n"
                    """, dir + "/huge.zip",
                ])
            #expect(python.status == 0, "\(python.combined)")
        }
    }
}

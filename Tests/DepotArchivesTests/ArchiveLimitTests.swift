import DepotArchives
import DepotTestSupport
import Foundation
import Testing

/// Archive bombs and limits: judged on the bytes actually produced, not on what headers declare.
struct ArchiveLimitTests {
    /// Python writes bombs: zeros deflate about 1000:1.
    static let bombScript = """
        import io, gzip, struct, sys, tarfile, zipfile
        out = sys.argv[1]
        zeros = bytes(64 << 20)
        with zipfile.ZipFile(out + "/bomb.zip", "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("Contents/zeros.bin", zeros)
        # The same entry, its central and local headers lying that it expands to 1 KiB.
        data = bytearray(open(out + "/bomb.zip", "rb").read())
        data[22:26] = struct.pack("<I", 1024)
        cd = data.rfind(b"PK\\x01\\x02")
        data[cd + 24:cd + 28] = struct.pack("<I", 1024)
        open(out + "/liar.zip", "wb").write(bytes(data))
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as t:
            info = tarfile.TarInfo("Contents/zeros.bin"); info.size = len(zeros); t.addfile(info, io.BytesIO(zeros))
        open(out + "/bomb.tar.gz", "wb").write(gzip.compress(buf.getvalue(), 9))
        """

    @Test func bombsAreRefusedWhileInflating() async throws {
        guard ExternalTool.require("python3") != nil else { return }
        try await withScratch { scratch in
            try await runPython(Self.bombScript, [scratch])
            let zipBomb = try HostileArchiveTests.refusal(try readFile(scratch + "/bomb.zip"), scratch: scratch)
            #expect(zipBomb?.code == .compressionRatio, "\(String(describing: zipBomb))")
            #expect(zipBomb?.entry == "Contents/zeros.bin")
            let gzipBomb = try HostileArchiveTests.refusal(try readFile(scratch + "/bomb.tar.gz"), scratch: scratch)
            #expect(gzipBomb?.code == .compressionRatio, "\(String(describing: gzipBomb))")
            let liar = try HostileArchiveTests.refusal(try readFile(scratch + "/liar.zip"), scratch: scratch)
            #expect(liar?.code == .checksumMismatch, "\(String(describing: liar))")
            // With a generous ratio the same zip passes: the refusal was the ratio, not something else.
            let generous = ArchiveLimits(maxCompressionRatio: 5000)
            let entries = try Archive.entries(scratch + "/bomb.zip", limits: generous)
            #expect(entries == [ArchiveEntry(path: "Contents/zeros.bin", kind: .file, size: 64 << 20)])
            // ... but not past a size limit, judged on produced bytes.
            let small = ArchiveLimits(maxEntryBytes: 10 << 20, maxCompressionRatio: 5000)
            #expect(throws: ArchiveError.self) { try Archive.entries(scratch + "/bomb.tar.gz", limits: small) }
        }
    }

    /// Many entries that each stay at the ratio-check threshold add up: 200 entries of 1 MiB of zeros (a
    /// 229 KB zip, ratio about 900) are refused as a whole, as one gzip stream of them would be.
    @Test func theRatioIsJudgedOverTheWholeZip() async throws {
        guard ExternalTool.require("python3") != nil else { return }
        try await withScratch { scratch in
            try await runPython(
                """
                import sys, zipfile
                with zipfile.ZipFile(sys.argv[1] + "/many.zip", "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
                    for i in range(200):
                        z.writestr("Contents/zeros-%03d.bin" % i, bytes(1 << 20))
                """, [scratch])
            let refusal = try HostileArchiveTests.refusal(try readFile(scratch + "/many.zip"), scratch: scratch)
            #expect(refusal?.code == .compressionRatio, "\(String(describing: refusal))")
            #expect(refusal?.message.hasPrefix("the archive expands more than 200 times") == true, "\(String(describing: refusal))")
            // With a generous ratio the same zip is read: the refusal was the ratio over the whole archive.
            let generous = ArchiveLimits(maxCompressionRatio: 5000)
            #expect(try Archive.entries(scratch + "/many.zip", limits: generous).count == 200)
        }
    }

    @Test func entryCountAndSizeLimits() async throws {
        var tar = TarBuilder()
        for index in 0..<20 { tar.file("Contents/f\(index).txt", Array(repeating: 0x61, count: 1000)) }
        tar.end()
        var zip = ZipBuilder()
        for index in 0..<20 { zip.add("Contents/f\(index).txt", Array(repeating: 0x61, count: 1000)) }
        for bytes in [tar.bytes, zip.build()] {
            try await HostileArchiveTests.expectRefused(
                bytes, .tooManyEntries, entry: nil, limits: ArchiveLimits(maxEntries: 10))
            try await HostileArchiveTests.expectRefused(
                bytes, .entryTooLarge, entry: "Contents/f0.txt", limits: ArchiveLimits(maxEntryBytes: 999))
            try await HostileArchiveTests.expectRefused(
                bytes, .archiveTooLarge, entry: nil, limits: ArchiveLimits(maxTotalBytes: 15_000))
            try await withScratch { scratch in
                try writeFile(scratch + "/a", bytes)
                let entries = try Archive.extract(scratch + "/a", into: scratch + "/out", limits: ArchiveLimits(maxEntries: 20))
                #expect(entries.count == 20)
                #expect(entries.allSatisfy { $0.size == 1000 })
            }
        }
    }

    @Test func tarSizeUnderstatedInPaxIsJudgedOnRealBytes() async throws {
        // A pax size record overrides the header: the reader must take the pax size, and limits apply to it.
        var tar = TarBuilder()
        tar.pax([("size", "5000")])
        tar.entry(Array("Contents/big.bin".utf8), data: Array(repeating: 0x62, count: 5000), declaredSize: 10)
        tar.end()
        try await HostileArchiveTests.expectRefused(
            tar.bytes, .entryTooLarge, entry: "Contents/big.bin", limits: ArchiveLimits(maxEntryBytes: 4000))
        try await withScratch { scratch in
            try writeFile(scratch + "/a.tar", tar.bytes)
            let entries = try Archive.extract(scratch + "/a.tar", into: scratch + "/out")
            #expect(entries == [ArchiveEntry(path: "Contents/big.bin", kind: .file, size: 5000)])
            #expect(try readFile(scratch + "/out/Contents/big.bin") == Array(repeating: 0x62, count: 5000))
        }
    }

    @Test func oversizedExtendedHeaderIsRefused() async throws {
        var tar = TarBuilder()
        tar.pax([("comment", String(repeating: "x", count: 100_000))])
        tar.file("a.txt", [1])
        tar.end()
        try await HostileArchiveTests.expectRefused(tar.bytes, .malformed, entry: nil)
    }
}

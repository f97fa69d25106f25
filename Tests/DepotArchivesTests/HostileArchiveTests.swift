import DepotArchives
import DepotTestSupport
import Foundation
import Testing

/// Hostile and damaged archives are refused with the entry and the reason, and leave nothing behind.
struct HostileArchiveTests {
    /// Extracts `bytes` as an archive; returns the refusal, checking nothing was written anywhere.
    static func refusal(_ bytes: [UInt8], limits: ArchiveLimits = ArchiveLimits(), scratch: String) throws -> ArchiveError? {
        let archive = scratch + "/archive-\(UInt32.random(in: .min ... .max))"
        try writeFile(archive, bytes)
        let target = scratch + "/sandbox/out"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch + "/sandbox") }
        do {
            try Archive.extract(archive, into: target, limits: limits)
        } catch {
            #expect(tree(scratch + "/sandbox") == ["out"], "nothing may stay after a refusal: \(tree(scratch + "/sandbox"))")
            #expect(throws: ArchiveError.self) { try Archive.entries(archive, limits: limits) }
            return error
        }
        Issue.record("the archive was extracted: \(tree(target))")
        return nil
    }

    static func expectRefused(
        _ bytes: [UInt8], _ code: ArchiveError.Code, entry: String?, limits: ArchiveLimits = ArchiveLimits(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await withScratch { scratch in
            let error = try refusal(bytes, limits: limits, scratch: scratch)
            #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
            if let entry { #expect(error?.entry == entry, "\(String(describing: error))", sourceLocation: sourceLocation) }
        }
    }

    static func tar(_ build: (inout TarBuilder) -> Void) -> [UInt8] {
        var builder = TarBuilder()
        builder.file("Contents/ok.txt", Array("fine".utf8))
        build(&builder)
        builder.end()
        return builder.bytes
    }

    static func zip(_ build: (inout ZipBuilder) -> Void) -> [UInt8] {
        var builder = ZipBuilder()
        builder.add("Contents/ok.txt", Array("fine".utf8))
        build(&builder)
        return builder.build()
    }

    // MARK: paths

    @Test(arguments: ["../evil.txt", "Contents/../../evil.txt", "/tmp/evil.txt", "..\\evil.txt", "C:/evil.txt"])
    func zipSlip(name: String) async throws {
        try await Self.expectRefused(Self.zip { $0.add(name, Array("pwned".utf8)) }, .unsafePath, entry: name)
    }

    @Test(arguments: ["../evil.txt", "./../evil.txt", "/etc/evil", "a\\..\\..\\evil"])
    func tarSlip(name: String) async throws {
        try await Self.expectRefused(Self.tar { $0.file(name, Array("pwned".utf8)) }, .unsafePath, entry: name)
    }

    @Test func tarSlipThroughPaxPathAndGNULongName() async throws {
        let pax = Self.tar {
            $0.pax([("path", "../../evil-pax.txt")])
            $0.file("harmless.txt", Array("pwned".utf8))
        }
        try await Self.expectRefused(pax, .unsafePath, entry: "../../evil-pax.txt")
        let gnu = Self.tar {
            $0.entry(Array("././@LongLink".utf8), type: UInt8(ascii: "L"), data: Array("../evil-gnu.txt\u{0}".utf8))
            $0.file("harmless.txt", Array("pwned".utf8))
        }
        try await Self.expectRefused(gnu, .unsafePath, entry: "../evil-gnu.txt")
        let prefixed = Self.tar {
            $0.entry(Array("evil.txt".utf8), data: Array("pwned".utf8), prefix: Array("..".utf8))
        }
        try await Self.expectRefused(prefixed, .unsafePath, entry: "../evil.txt")
    }

    @Test func namesThatAreNotUTF8() async throws {
        try await Self.expectRefused(Self.tar { $0.entry([0x62, 0xE9, 0x62, 0xE9], data: [1]) }, .badName, entry: nil)
        var builder = ZipBuilder()
        builder.entries.append(.init(name: [0x63, 0x61, 0x66, 0xE9], data: [1]))
        try await Self.expectRefused(builder.build(), .badName, entry: nil)
    }

    // MARK: links and special files

    @Test func tarLinksDevicesAndFifos() async throws {
        let cases: [(UInt8, ArchiveError.Code)] = [
            (UInt8(ascii: "2"), .link), (UInt8(ascii: "1"), .link), (UInt8(ascii: "3"), .specialFile),
            (UInt8(ascii: "4"), .specialFile), (UInt8(ascii: "6"), .specialFile), (UInt8(ascii: "S"), .unsupported),
        ]
        for (type, code) in cases {
            let bytes = Self.tar { $0.entry(Array("Contents/odd".utf8), type: type, linkName: "/etc/passwd") }
            try await Self.expectRefused(bytes, code, entry: "Contents/odd")
        }
    }

    @Test func tarSymlinkThenFileThroughIt() async throws {
        // The classic two-step escape: a link to `/`, then a file "through" it. The link alone is refused.
        let bytes = Self.tar {
            $0.entry(Array("escape".utf8), type: UInt8(ascii: "2"), linkName: "/")
            $0.file("escape/tmp/evil.txt", Array("pwned".utf8))
        }
        try await Self.expectRefused(bytes, .link, entry: "escape")
    }

    @Test func zipSymlinkAndDevice() async throws {
        try await Self.expectRefused(
            Self.zip { $0.add("Contents/link", Array("/etc/passwd".utf8), unixMode: 0o120777) }, .link,
            entry: "Contents/link")
        try await Self.expectRefused(
            Self.zip { $0.add("Contents/fifo", [], unixMode: 0o010644) }, .specialFile, entry: "Contents/fifo")
    }

    @Test func pythonMadeSymlinksInZipAndTar() async throws {
        guard ExternalTool.require("python3") != nil else { return }
        try await withScratch { scratch in
            let script = """
                import io, sys, tarfile, zipfile
                out = sys.argv[1]
                with zipfile.ZipFile(out + "/link.zip", "w") as z:
                    z.writestr("ok.txt", "fine")
                    info = zipfile.ZipInfo("link")
                    info.create_system = 3
                    info.external_attr = (0o120777 << 16)
                    z.writestr(info, "../../etc/passwd")
                with tarfile.open(out + "/link.tar.gz", "w:gz") as t:
                    info = tarfile.TarInfo("hard")
                    info.type = tarfile.LNKTYPE
                    info.linkname = "/etc/passwd"
                    t.addfile(info)
                """
            try await runPython(script, [scratch])
            for name in ["link.zip", "link.tar.gz"] {
                let error = try Self.refusal(try readFile(scratch + "/" + name), scratch: scratch)
                #expect(error?.code == .link, "\(name): \(String(describing: error))")
            }
        }
    }

    // MARK: duplicates

    @Test func duplicateEntries() async throws {
        try await Self.expectRefused(
            Self.zip { $0.add("Contents/ok.txt", Array("second".utf8)) }, .duplicate, entry: "Contents/ok.txt")
        try await Self.expectRefused(
            Self.tar { $0.file("./Contents/ok.txt", Array("second".utf8)) }, .duplicate, entry: "./Contents/ok.txt")
        try await Self.expectRefused(
            Self.tar { $0.file("Contents/ok.txt/inside", Array("x".utf8)) }, .duplicate, entry: "Contents/ok.txt/inside")
    }

    // MARK: integrity

    @Test func zipWithWrongCRC() async throws {
        var builder = ZipBuilder()
        builder.entries.append(.init(name: Array("a.txt".utf8), data: Array("hello".utf8), crc: 0x1234_5678))
        try await Self.expectRefused(builder.build(), .checksumMismatch, entry: "a.txt")
    }

    @Test func tarWithBadHeaderChecksum() async throws {
        var bytes = Self.tar { _ in }
        bytes[10] ^= 0x01
        try await Self.expectRefused(bytes, .malformed, entry: nil)
    }

    @Test func truncatedArchives() async throws {
        var random = SeededBytes(seed: 3)
        let data = random.bytes(100_000)
        var zipBuilder = ZipBuilder()
        zipBuilder.add("a.bin", data)
        let zip = zipBuilder.build()
        var tarBuilder = TarBuilder()
        tarBuilder.file("a.bin", data)
        tarBuilder.end()
        let tar = tarBuilder.bytes
        for cut in [zip.count - 1, zip.count - 22, zip.count / 2, 30] {
            try await Self.expectRefused(Array(zip.prefix(cut)), .truncated, entry: nil)
        }
        try await Self.expectRefused(Array(tar.prefix(60_000)), .truncated, entry: "a.bin")
        try await Self.expectRefused(Array(tar.prefix(512 + 100_352)), .truncated, entry: nil)  // at a block boundary
        try await Self.expectRefused(Array(tar.prefix(300)), .truncated, entry: nil)
    }

    @Test func truncatedGzip() async throws {
        guard ExternalTool.require("python3") != nil else { return }
        try await withScratch { scratch in
            let script = """
                import gzip, random, sys, tarfile, io
                out = sys.argv[1]
                data = random.Random(1).randbytes(200000)
                buf = io.BytesIO()
                with tarfile.open(fileobj=buf, mode="w") as t:
                    info = tarfile.TarInfo("a.bin"); info.size = len(data); t.addfile(info, io.BytesIO(data))
                whole = gzip.compress(buf.getvalue())
                open(out + "/cut.tar.gz", "wb").write(whole[: len(whole) // 2])
                open(out + "/notrailer.tar.gz", "wb").write(whole[:-8])
                open(out + "/garbage.tar.gz", "wb").write(whole + b"garbage")
                """
            try await runPython(script, [scratch])
            let cut = try Self.refusal(try readFile(scratch + "/cut.tar.gz"), scratch: scratch)
            #expect(cut?.code == .truncated, "\(String(describing: cut))")
            let noTrailer = try Self.refusal(try readFile(scratch + "/notrailer.tar.gz"), scratch: scratch)
            #expect(noTrailer?.code == .truncated, "\(String(describing: noTrailer))")
            let garbage = try Self.refusal(try readFile(scratch + "/garbage.tar.gz"), scratch: scratch)
            #expect(garbage?.code == .malformed, "\(String(describing: garbage))")
        }
    }

    @Test func unknownFormatsAndUnsupportedFeatures() async throws {
        try await Self.expectRefused(Array("just some text, not an archive".utf8), .unknownFormat, entry: nil)
        try await Self.expectRefused([], .unknownFormat, entry: nil)
        // A zip entry with the encryption flag set.
        var zip = Self.zip { _ in }
        zip[6] |= 0x01
        let central = zip.count - 22 - (46 + "Contents/ok.txt".utf8.count)
        zip[central + 8] |= 0x01
        try await Self.expectRefused(zip, .unsupported, entry: "Contents/ok.txt")
    }

    @Test func existingFilesAreNeverOverwritten() async throws {
        try await withScratch { scratch in
            try writeFile(scratch + "/a.zip", Self.zip { _ in })
            try writeFile(scratch + "/out/keep.txt", Array("mine".utf8))
            #expect(throws: ArchiveError.self) { try Archive.extract(scratch + "/a.zip", into: scratch + "/out") }
            #expect(try readFile(scratch + "/out/keep.txt") == Array("mine".utf8))
        }
    }
}

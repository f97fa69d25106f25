import DepotArchives
import DepotTestSupport
import Foundation
import Testing

/// Archives made by the real `zip`, `tar` and Python's zipfile and tarfile extract to exactly the files
/// they were made from.
struct RealToolArchiveTests {
    /// A pack-like tree: text, incompressible bytes, nested directories, a long path, a UTF-8 name, an empty file.
    static func makeSource(_ root: String) throws -> [String: [UInt8]] {
        var random = SeededBytes(seed: 8)
        let longDirectory = String(repeating: "long-directory-name/", count: 6)
        let files: [String: [UInt8]] = [
            "Contents/notes.txt": Array(String(repeating: "Depot unpacks archives. ", count: 5000).utf8),
            "Contents/media/noise.bin": random.bytes(300_000),
            "Contents/media/empty.dat": [],
            "Contents/Émile/ünïcödé.txt": Array("accents".utf8),
            "Contents/\(longDirectory)deep-file-with-a-long-name-as-well.json": Array("{\"deep\": true}".utf8),
            "pack.json": Array("{\"productId\": \"com.example.level1\", \"version\": \"1.0\"}".utf8),
        ]
        for (path, bytes) in files { try writeFile(root + "/" + path, bytes) }
        return files
    }

    static func expectExtracted(_ archive: String, matches files: [String: [UInt8]], scratch: String) throws {
        let target = scratch + "/out-\(UInt32.random(in: .min ... .max))"
        let entries = try Archive.extract(archive, into: target)
        let extractedFiles = entries.filter { $0.kind == .file }
        #expect(Set(extractedFiles.map(\.path)) == Set(files.keys))
        for (path, bytes) in files {
            #expect(try readFile(target + "/" + path) == bytes, "\(path)")
            #expect(extractedFiles.first { $0.path == path }?.size == Int64(bytes.count))
        }
        #expect(try Archive.entries(archive) == entries)
    }

    @Test func infoZipDeflateAndStored() async throws {
        guard let zip = ExternalTool.require("zip") else { return }
        try await withScratch { scratch in
            let files = try Self.makeSource(scratch + "/src")
            try await ExternalTool.runSucceeding(zip, ["-q", "-r", "-6", scratch + "/deflate.zip", "."], in: scratch + "/src")
            try await ExternalTool.runSucceeding(zip, ["-q", "-r", "-0", scratch + "/stored.zip", "."], in: scratch + "/src")
            try Self.expectExtracted(scratch + "/deflate.zip", matches: files, scratch: scratch)
            try Self.expectExtracted(scratch + "/stored.zip", matches: files, scratch: scratch)
        }
    }

    @Test func infoZipStreamedWithDataDescriptors() async throws {
        guard let zip = ExternalTool.require("zip") else { return }
        try await withScratch { scratch in
            let files = try Self.makeSource(scratch + "/src")
            // Writing to a pipe, zip cannot seek back: sizes and CRCs go into data descriptors (flag bit 3).
            let shell = try await ExternalTool.run(
                "/bin/sh", ["-c", "\(zip) -q -r - . | cat > ../streamed.zip"], in: scratch + "/src")
            #expect(shell.status == 0, "\(shell.combined)")
            let bytes = try readFile(scratch + "/streamed.zip")
            // Local headers (`PK\u{3}\u{4}`) whose flag bit 3 says a data descriptor follows the data.
            var described = 0
            for index in 0..<(bytes.count - 8)
            where bytes[index] == 0x50 && bytes[index + 1] == 0x4B && bytes[index + 2] == 3 && bytes[index + 3] == 4
                && bytes[index + 6] & 0x08 != 0
            {
                described += 1
            }
            #expect(described >= files.count, "the file entries should use data descriptors")
            try Self.expectExtracted(scratch + "/streamed.zip", matches: files, scratch: scratch)
        }
    }

    @Test(arguments: ["ustar", "pax", "gnu"])
    func gnuTarFormats(format: String) async throws {
        guard let tar = ExternalTool.require("tar") else { return }
        try await withScratch { scratch in
            var files = try Self.makeSource(scratch + "/src")
            if format == "ustar" {
                // ustar cannot hold a name past 255 bytes split at a slash; keep the tree within its reach.
                let long = files.keys.first { $0.contains("long-directory") }!
                try FileManager.default.removeItem(atPath: scratch + "/src/Contents/long-directory-name")
                files[long] = nil
            }
            try await ExternalTool.runSucceeding(tar, ["--format=\(format)", "-cf", scratch + "/plain.tar", "."], in: scratch + "/src")
            try await ExternalTool.runSucceeding(
                tar, ["--format=\(format)", "-czf", scratch + "/packed.tar.gz", "."], in: scratch + "/src")
            try Self.expectExtracted(scratch + "/plain.tar", matches: files, scratch: scratch)
            try Self.expectExtracted(scratch + "/packed.tar.gz", matches: files, scratch: scratch)
        }
    }

    @Test func pythonZipfileWithZip64AndUnseekableOutput() async throws {
        guard ExternalTool.require("python3") != nil else { return }
        try await withScratch { scratch in
            let files = try Self.makeSource(scratch + "/src")
            let script = """
                import io, os, sys, zipfile
                src, out = sys.argv[1], sys.argv[2]
                class Unseekable(io.RawIOBase):
                    def __init__(self, f): self.f = f
                    def writable(self): return True
                    def write(self, b): return self.f.write(b)
                names = []
                for d, _, fs in os.walk(src):
                    for n in fs: names.append(os.path.relpath(os.path.join(d, n), src))
                with zipfile.ZipFile(out + "/zip64.zip", "w", zipfile.ZIP_DEFLATED) as z:
                    for n in names:
                        with open(os.path.join(src, n), "rb") as f, z.open(n, "w", force_zip64=True) as w:
                            w.write(f.read())
                with open(out + "/piped.zip", "wb") as raw:
                    with zipfile.ZipFile(Unseekable(raw), "w", zipfile.ZIP_DEFLATED) as z:
                        for n in names:
                            z.write(os.path.join(src, n), n)
                """
            try await runPython(script, [scratch + "/src", scratch])
            try Self.expectExtracted(scratch + "/zip64.zip", matches: files, scratch: scratch)
            try Self.expectExtracted(scratch + "/piped.zip", matches: files, scratch: scratch)
        }
    }

    @Test(arguments: ["PAX_FORMAT", "GNU_FORMAT", "USTAR_FORMAT"])
    func pythonTarfile(format: String) async throws {
        guard ExternalTool.require("python3") != nil else { return }
        try await withScratch { scratch in
            var files = try Self.makeSource(scratch + "/src")
            if format == "USTAR_FORMAT" {
                let long = files.keys.first { $0.contains("long-directory") }!
                try FileManager.default.removeItem(atPath: scratch + "/src/Contents/long-directory-name")
                files[long] = nil
            }
            let script = """
                import sys, tarfile
                src, out, fmt = sys.argv[1], sys.argv[2], getattr(tarfile, sys.argv[3])
                with tarfile.open(out + "/py.tar", "w", format=fmt) as t: t.add(src, arcname=".")
                with tarfile.open(out + "/py.tar.gz", "w:gz", format=fmt) as t: t.add(src, arcname=".")
                """
            try await runPython(script, [scratch + "/src", scratch, format])
            try Self.expectExtracted(scratch + "/py.tar", matches: files, scratch: scratch)
            try Self.expectExtracted(scratch + "/py.tar.gz", matches: files, scratch: scratch)
        }
    }

    @Test func pythonZip64LargeEntryStreamsThroughFixedBuffers() async throws {
        guard ExternalTool.require("python3") != nil else { return }
        try await withScratch { scratch in
            // 48 MiB of varied bytes, stored with ZIP64 sizes: read in 64 KiB steps, CRC checked.
            let script = """
                import random, sys, zipfile
                out = sys.argv[1]
                r = random.Random(5)
                with open(out + "/source.bin", "wb") as source:
                    with zipfile.ZipFile(out + "/big.zip", "w", zipfile.ZIP_STORED) as z:
                        with z.open("big.bin", "w", force_zip64=True) as w:
                            for _ in range(48):
                                chunk = r.randbytes(1 << 20)
                                source.write(chunk)
                                w.write(chunk)
                """
            try await runPython(script, [scratch])
            let entries = try Archive.extract(scratch + "/big.zip", into: scratch + "/out")
            #expect(entries == [ArchiveEntry(path: "big.bin", kind: .file, size: 48 << 20)])
            #expect(FileManager.default.contentsEqual(atPath: scratch + "/out/big.bin", andPath: scratch + "/source.bin"))
        }
    }
}

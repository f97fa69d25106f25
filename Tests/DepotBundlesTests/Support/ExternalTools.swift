import DepotTestSupport
import Foundation

/// Runs real ZIP readers over bundles: Info-ZIP's `unzip -t` and Python's `zipfile`.
enum ExternalTools {
    /// `unzip -tq`: tests every entry's CRC.
    static func unzipTest(_ zip: String) async throws -> ExternalTool.Output {
        try await ExternalTool.run("/usr/bin/unzip", ["-tq", zip])
    }

    /// What Python's zipfile saw, after checking the bundle against the pack's `Contents/`.
    struct PythonReport: Decodable {
        var info: [String: PlistValue]
        var stored: [String]
        var deflated: [String]
        var count: Int
    }

    enum PlistValue: Decodable, Equatable {
        case string(String)
        case integer(Int64)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Int64.self) {
                self = .integer(value)
            } else {
                self = .string(try container.decode(String.self))
            }
        }
    }

    /// Opens the bundle with Python's zipfile: `testzip()` must be None, the names must be
    /// ContentInfo.plist then the pack's files sorted by UTF-8 bytes, every file's bytes must equal the
    /// pack's, and ContentInfo.plist must parse with plistlib and hold exactly the expected keys.
    static func pythonCheck(zip: String, contents: String) async throws -> PythonReport {
        let output = try await ExternalTool.run("/usr/bin/env", ["python3", "-c", pythonScript, zip, contents])
        guard output.status == 0, let line = output.output.split(separator: "\n").last else {
            throw CheckFailed(description: "python zipfile check failed:\n\(output.combined)")
        }
        return try JSONDecoder().decode(PythonReport.self, from: Data(line.utf8))
    }

    struct CheckFailed: Error, CustomStringConvertible {
        var description: String
    }

    static let pythonScript = #"""
        import json, os, plistlib, sys, zipfile
        path, contents = sys.argv[1], sys.argv[2]
        expected = []
        for directory, _, names in os.walk(contents):
            for name in names:
                full = os.path.join(directory, name)
                expected.append("Contents/" + os.path.relpath(full, contents))
        expected.sort(key=lambda n: n.encode("utf-8"))
        with zipfile.ZipFile(path) as z:
            assert z.testzip() is None, "testzip found a bad entry"
            infos = z.infolist()
            names = [i.filename for i in infos]
            assert names[0] == "ContentInfo.plist", names[0]
            assert names[1:] == expected, "names differ from the pack's files"
            total = 0
            for info in infos[1:]:
                assert not info.is_dir()
                assert info.flag_bits & 0x800, "UTF-8 flag missing"
                assert info.date_time == (1980, 1, 1, 0, 0, 0), info.date_time
                assert info.external_attr >> 16 == 0o100644, oct(info.external_attr >> 16)
                assert info.create_system == 3
                with open(os.path.join(contents, info.filename[len("Contents/"):]), "rb") as f:
                    data = f.read()
                assert z.read(info) == data, "bytes differ for " + info.filename
                total += len(data)
            plist = plistlib.loads(z.read("ContentInfo.plist"))
            keys = {"ContentVersion", "IAPProductIdentifier", "ContentIdentifier", "PublishedAt",
                    "UnpackedSize", "FileCount"}
            assert set(plist) == keys, sorted(plist)
            assert plist["FileCount"] == len(expected)
            assert plist["UnpackedSize"] == total
            stored = [i.filename for i in infos if i.compress_type == zipfile.ZIP_STORED]
            deflated = [i.filename for i in infos if i.compress_type == zipfile.ZIP_DEFLATED]
            print(json.dumps({"info": plist, "stored": stored[:100], "deflated": deflated[:100], "count": len(infos)}))
        """#
}

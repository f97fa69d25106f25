import DepotTestSupport
import Foundation

/// Applies a delta bundle the way a client does, with Python's zipfile, and compares the result with
/// the new version's files.
enum DeltaApplier {
    /// What applying the delta found.
    struct Report: Decodable {
        var info: [String: ExternalTools.PlistValue]
        var removed: [String]
        var entries: [String]
    }

    /// Copies `oldContents` to `work`, deletes the delta's `RemovedPaths` and the directories this
    /// leaves empty, unpacks the delta's `Contents/` over it, then checks that `work` holds exactly the
    /// files and directories of `newContents`, with the same bytes. Throws when anything differs.
    static func apply(delta: String, oldContents: String, newContents: String, work: String) async throws -> Report {
        let output = try await ExternalTool.run(
            "/usr/bin/env", ["python3", "-c", script, delta, oldContents, newContents, work])
        guard output.status == 0, let line = output.output.split(separator: "\n").last else {
            throw ExternalTools.CheckFailed(description: "applying the delta failed:\n\(output.combined)")
        }
        return try JSONDecoder().decode(Report.self, from: Data(line.utf8))
    }

    static let script = #"""
        import json, os, plistlib, shutil, sys, zipfile
        delta, old, new, work = sys.argv[1:5]
        shutil.copytree(old, work)
        with zipfile.ZipFile(delta) as z:
            assert z.testzip() is None, "testzip found a bad entry"
            infos = z.infolist()
            names = [i.filename for i in infos]
            assert names[0] == "ContentInfo.plist", names[0]
            assert names[1:] == sorted(names[1:], key=lambda n: n.encode()), "entries not sorted"
            info = plistlib.loads(z.read("ContentInfo.plist"))
            removed = info.pop("RemovedPaths")
            assert removed == sorted(removed, key=lambda p: p.encode()), "RemovedPaths not sorted"
            for path in removed:
                os.remove(os.path.join(work, path))
                parent = os.path.dirname(path)
                while parent and not os.listdir(os.path.join(work, parent)):
                    os.rmdir(os.path.join(work, parent))
                    parent = os.path.dirname(parent)
            for entry in infos[1:]:
                assert entry.filename.startswith("Contents/"), entry.filename
                assert entry.date_time == (1980, 1, 1, 0, 0, 0)
                target = os.path.join(work, entry.filename[len("Contents/"):])
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as f:
                    f.write(z.read(entry))

        def tree(root):
            files, dirs = {}, set()
            for directory, subdirectories, filenames in os.walk(root):
                for name in subdirectories:
                    dirs.add(os.path.relpath(os.path.join(directory, name), root))
                for name in filenames:
                    with open(os.path.join(directory, name), "rb") as f:
                        files[os.path.relpath(os.path.join(directory, name), root)] = f.read()
            return files, dirs

        (got_files, got_dirs), (want_files, want_dirs) = tree(work), tree(new)
        assert got_dirs == want_dirs, ("directories differ", sorted(got_dirs ^ want_dirs))
        assert got_files.keys() == want_files.keys(), ("files differ", sorted(set(got_files) ^ set(want_files)))
        for name, data in want_files.items():
            assert got_files[name] == data, ("bytes differ", name)
        assert info["FileCount"] == len(want_files)
        assert info["UnpackedSize"] == sum(len(d) for d in want_files.values())
        print(json.dumps({"info": info, "removed": removed, "entries": names[1:]}))
        """#
}

import Foundation
import Testing

@testable import DepotBundles

@Suite("Mac clutter in packs is ignored everywhere and reported")
struct PackClutterTests {
    @Test(arguments: [
        (".DS_Store", true), ("._a.png", true), ("._", true), ("__MACOSX", true),
        (".DS_Store.txt", false), ("DS_Store", false), ("_._a", false), (".a", false), ("__macosx", false),
        ("__MACOSX2", false), (".ds_store", false), ("a._b", false),
    ])
    func clutterNames(name: String, isClutter: Bool) {
        #expect(PackPath.isClutter(Array(name.utf8)) == isClutter, "\(name)")
    }

    @Test func clutterAtTheRootAndAtAnyDepthIsSkippedAndListed() async throws {
        try await withTemporaryDirectory { dir in
            let pack = try PackFixture.write(
                at: dir + "/pack",
                files: [
                    ("a.txt", Array("a".utf8)),
                    (".DS_Store", [0, 0, 0, 1]),
                    ("._a.txt", [0, 5, 22, 7]),
                    ("images/deep/er/.DS_Store", [1]),
                    ("images/deep/b.png", Array("png".utf8)),
                    ("images/deep/._b.png", [2]),
                    ("__MACOSX/images/._b.png", [3]),
                    ("keep/.DS_Store.txt", Array("kept".utf8)),
                ])
            let fm = FileManager.default
            try Data([0]).write(to: URL(fileURLWithPath: pack + "/.DS_Store"))
            try Data([0]).write(to: URL(fileURLWithPath: pack + "/._pack.json"))
            try fm.createDirectory(atPath: pack + "/__MACOSX/Contents", withIntermediateDirectories: true)
            // Clutter is ignored whatever its type: a link named like AppleDouble is never followed nor refused.
            try fm.createSymbolicLink(atPath: pack + "/Contents/images/._link", withDestinationPath: "/etc/passwd")
            let read = try PackReader.read(directory: pack, limits: .default)
            #expect(read.files.map(\.relativePath) == ["a.txt", "images/deep/b.png", "keep/.DS_Store.txt"])
            #expect(
                read.ignored == [
                    ".DS_Store", "._pack.json", "Contents/.DS_Store", "Contents/._a.txt", "Contents/__MACOSX",
                    "Contents/images/._link", "Contents/images/deep/._b.png", "Contents/images/deep/er/.DS_Store",
                    "__MACOSX",
                ])
            #expect(read.unpackedSize == 1 + 3 + 4)
        }
    }

    @Test func discoveryDoesNotLookInsideMacOSXFolders() async throws {
        try await withTemporaryDirectory { dir in
            let files = [("a.txt", Array("a".utf8))]
            try PackFixture.write(at: dir + "/content/level1", files: files)
            try PackFixture.write(at: dir + "/content/__MACOSX/level1", files: files)
            #expect(try PackReader.discover(root: dir + "/content") == [dir + "/content/level1"])
        }
    }
}

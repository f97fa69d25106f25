import DepotBundles
import DepotTestSupport
import Foundation
import Testing

@testable import DepotServices

/// An unpacked upload made a pack: plain files become `Contents/`, a missing `pack.json` is written from the request,
/// a `pack.json` present is left for the stager to check, and a wrapping folder is looked into only when it holds a
/// pack.
@Suite struct PackFolderCompletionTests {
    /// A fresh folder under the temporary directory, removed by `remove()`.
    struct Scratch {
        let path = NSTemporaryDirectory() + "depot-pack-completion-" + UUID().uuidString

        init(_ name: String) throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }

        /// Writes `bytes` at `relative`, making its folders.
        func write(_ relative: String, _ bytes: [UInt8]) throws {
            let file = path + "/" + relative
            try FileManager.default.createDirectory(
                atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: file))
        }

        /// Writes `text` at `relative`.
        func write(_ relative: String, _ text: String) throws { try write(relative, Array(text.utf8)) }

        func remove() { try? FileManager.default.removeItem(atPath: path) }
    }

    static let facts = PackFolderCompletion.Facts(
        productId: "com.example.atlas", version: "2.0", contentId: nil, publishedAt: 1_780_000_000, title: "Atlas")

    @Test func plainFilesBecomeTheContentsOfAPackMadeFromTheRequest() throws {
        let scratch = try Scratch(#function)
        defer { scratch.remove() }
        try scratch.write("up/maps/a.bin", [1, 2, 3])
        try scratch.write("up/Contents.txt", [4])
        let folder = PackFolderCompletion.packFolder(in: scratch.path + "/up")
        #expect(folder == scratch.path + "/up")
        try PackFolderCompletion.complete(folder, with: Self.facts)
        let pack = try PackReader.read(directory: folder)
        #expect(pack.files.map { $0.relativePath } == ["Contents.txt", "maps/a.bin"])
        #expect(pack.manifest == PackManifest(productId: "com.example.atlas", version: "2.0", publishedAt: 1_780_000_000, title: "Atlas"))
    }

    @Test func aPackJSONPresentIsLeftAsItIsAndContentsWithoutOneGetsOne() throws {
        let scratch = try Scratch(#function)
        defer { scratch.remove() }
        let own = #"{"productId": "com.example.other", "version": "9", "publishedAt": "2026-03-01T09:00:00Z"}"#
        try scratch.write("with/pack.json", own)
        try scratch.write("with/Contents/a.txt", [1])
        try PackFolderCompletion.complete(scratch.path + "/with", with: Self.facts)
        #expect(try String(contentsOfFile: scratch.path + "/with/pack.json", encoding: .utf8) == own)
        try scratch.write("bare/Contents/a.txt", [1])
        try PackFolderCompletion.complete(scratch.path + "/bare", with: Self.facts)
        #expect(try PackReader.read(directory: scratch.path + "/bare").manifest.version == "2.0")
    }

    @Test func aWrappingFolderIsOpenedOnlyWhenItHoldsAPack() throws {
        let scratch = try Scratch(#function)
        defer { scratch.remove() }
        try scratch.write("zipped/pack/Contents/a.txt", [1])
        #expect(PackFolderCompletion.packFolder(in: scratch.path + "/zipped") == scratch.path + "/zipped/pack")
        // A single folder of plain files is content, not a wrapper.
        try scratch.write("plain/levels/one.bin", [1])
        #expect(PackFolderCompletion.packFolder(in: scratch.path + "/plain") == scratch.path + "/plain")
        try FileManager.default.createDirectory(atPath: scratch.path + "/empty", withIntermediateDirectories: false)
        #expect(throws: PackFolderCompletion.Failure.self) { try PackFolderCompletion.complete(scratch.path + "/empty", with: Self.facts) }
    }
}

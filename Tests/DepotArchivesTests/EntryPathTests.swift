import Testing

@testable import DepotArchives

/// The name rules, row by row: what is accepted (and how it is normalised) and why the rest is refused.
struct EntryPathTests {
    static let acceptedRows: [(String, EntryPath.Checked)] = [
        ("a.txt", .path("a.txt", trailingSlash: false)),
        ("dir/", .path("dir", trailingSlash: true)),
        ("dir/sub/file.bin", .path("dir/sub/file.bin", trailingSlash: false)),
        ("./a.txt", .path("a.txt", trailingSlash: false)),
        ("././a/b", .path("a/b", trailingSlash: false)),
        ("./", .root),
        (".", .root),
        ("Contents/Émile ünïcödé.txt", .path("Contents/Émile ünïcödé.txt", trailingSlash: false)),
        ("..a/b..", .path("..a/b..", trailingSlash: false)),
        ("a/.hidden", .path("a/.hidden", trailingSlash: false)),
        ("ab:c", .path("ab:c", trailingSlash: false)),
        ("日本/語.txt", .path("日本/語.txt", trailingSlash: false)),
    ]

    @Test(arguments: acceptedRows)
    func accepted(name: String, expected: EntryPath.Checked) throws {
        #expect(try EntryPath.check(Array(name.utf8), limits: ArchiveLimits()) == expected)
    }

    static let refusedRows: [([UInt8], ArchiveError.Code)] = [
        (Array("/etc/passwd".utf8), .unsafePath),
        (Array("../evil".utf8), .unsafePath),
        (Array("a/../../evil".utf8), .unsafePath),
        (Array("a/..".utf8), .unsafePath),
        (Array("a/./b".utf8), .unsafePath),
        (Array("a//b".utf8), .unsafePath),
        (Array("a/b//".utf8), .unsafePath),
        (Array("..\\evil".utf8), .unsafePath),
        (Array("a\\b".utf8), .unsafePath),
        (Array("C:/windows".utf8), .unsafePath),
        (Array("c:evil".utf8), .unsafePath),
        (Array("a:b".utf8), .unsafePath),
        (Array("./../evil".utf8), .unsafePath),
        (Array("//server/share".utf8), .unsafePath),
        ([], .badName),
        ([0x61, 0xFF, 0x62], .badName),
        ([0xC3, 0x28], .badName),
        ([0xED, 0xA0, 0x80], .badName),  // an encoded surrogate
        ([0xC0, 0xAF], .badName),  // an overlong `/`
        (Array("a\u{0}b".utf8), .badName),
        (Array("a\nb".utf8), .badName),
        (Array("a\u{7F}".utf8), .badName),
        (Array(repeating: 0x61, count: 1025), .badName),
    ]

    @Test(arguments: refusedRows)
    func refused(name: [UInt8], code: ArchiveError.Code) {
        #expect(throws: ArchiveError.self) { try EntryPath.check(name, limits: ArchiveLimits()) }
        do {
            _ = try EntryPath.check(name, limits: ArchiveLimits())
        } catch {
            #expect(error.code == code, "\(error)")
        }
    }

    @Test func treeRefusesDuplicatesAndFilesInTheWayOfDirectories() throws {
        var tree = EntryTree()
        try tree.add("a/b.txt", kind: .file, shown: "a/b.txt")
        try tree.add("a", kind: .directory, shown: "a/")
        #expect(throws: ArchiveError.self) { try tree.add("a/b.txt", kind: .file, shown: "a/b.txt") }
        #expect(throws: ArchiveError.self) { try tree.add("a", kind: .file, shown: "a") }
        #expect(throws: ArchiveError.self) { try tree.add("a", kind: .directory, shown: "a/") }
        #expect(throws: ArchiveError.self) { try tree.add("a/b.txt/c", kind: .file, shown: "a/b.txt/c") }
        #expect(throws: ArchiveError.self) { try tree.add("a/b.txt", kind: .directory, shown: "a/b.txt/") }
        try tree.add("a/c", kind: .directory, shown: "a/c/")
        try tree.add("a/c/d", kind: .file, shown: "a/c/d")
    }

    static let formatRows: [([UInt8], ArchiveFormat?)] = [
        ([0x50, 0x4B, 0x03, 0x04, 0, 0], .zip),
        ([0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18), .zip),
        ([0x1F, 0x8B, 0x08, 0], .tarGzip),
        ([UInt8](repeating: 0, count: 257) + Array("ustar\u{0}00".utf8) + [UInt8](repeating: 0, count: 247), .tar),
        ([UInt8](repeating: 0, count: 257) + Array("ustar  \u{0}".utf8) + [UInt8](repeating: 0, count: 247), .tar),
        ([UInt8](repeating: 0, count: 512), nil),
        (Array("Rar!\u{1A}\u{07}".utf8), nil),
        ([0x1F, 0x8B], nil),
        ([0x50, 0x4B, 0x07, 0x08], nil),
        ([], nil),
    ]

    @Test(arguments: formatRows)
    func formatFromMagicBytes(prefix: [UInt8], expected: ArchiveFormat?) {
        #expect(ArchiveFormat.detect(prefix) == expected)
    }
}

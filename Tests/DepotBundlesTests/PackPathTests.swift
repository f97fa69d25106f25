import Testing

@testable import DepotBundles

@Suite struct PackPathTests {
    @Test(arguments: ["a.txt", "images/a.png", "deep/er/still.bin", ".hidden", "naïve café.txt", "a..b", "..a"])
    func acceptsSafePaths(path: String) throws {
        try PackPath.validate(relativePath: path)
    }

    @Test(arguments: [
        ("../escape.txt", PackError.Code.unsafePath, "\"..\""),
        ("a/../../b", .unsafePath, "\"..\""),
        ("a/./b", .unsafePath, "\".\""),
        ("/etc/passwd", .unsafePath, "absolute"),
        ("C:/Windows/x", .unsafePath, "absolute"),
        ("a\\b.txt", .unsafePath, "backslash"),
        ("a\u{0}b", .unsafePath, "NUL"),
        ("a//b", .unsafePath, "empty path component"),
        ("a/", .unsafePath, "empty path component"),
        ("", .unsafePath, "empty path"),
        ("tab\there", .badName, "control character"),
        ("line\nbreak", .badName, "control character"),
        (String(repeating: "n", count: 256), .badName, "longer than 255"),
        (Array(repeating: "d", count: 600).joined(separator: "/"), .badName, "longer than 1024"),
    ])
    func refusesUnsafePaths(path: String, code: PackError.Code, fragment: String) {
        #expect {
            try PackPath.validate(relativePath: path)
        } throws: { error in
            let error = error as? PackError
            return error?.code == code && error?.message.contains(fragment) == true
        }
    }

    @Test func refusesNamesThatAreNotUTF8() {
        #expect {
            _ = try PackPath.validateName([0x66, 0xFF, 0x6F], parent: "Contents/dir")
        } throws: { error in
            let error = error as? PackError
            return error?.code == .badName && error?.message.hasPrefix("Contents/dir/f") == true
        }
    }

    @Test(arguments: [("A.txt", "a.txt"), ("STRASSE", "straße"), ("caf\u{E9}", "cafe\u{301}"), ("Ǆ", "ǆ")])
    func collisionKeysFoldCaseAndNormalization(first: String, second: String) {
        #expect(PackPath.collisionKey(first) == PackPath.collisionKey(second))
    }

    @Test func distinctNamesDoNotCollide() {
        #expect(PackPath.collisionKey("a.txt") != PackPath.collisionKey("b.txt"))
        #expect(PackPath.collisionKey("a") != PackPath.collisionKey("á"))
    }
}

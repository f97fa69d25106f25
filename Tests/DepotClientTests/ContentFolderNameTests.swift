import Foundation
import Testing

@testable import DepotClient

/// A content id the server may offer (the identifier rule: at most 128 bytes) becomes a folder and the download
/// files beside it, `<id>.<digest>.partial` and `.partial.etag`: every one of them can be created.
@Suite("Content folder names")
struct ContentFolderNameTests {
    @Test func theLongestAcceptedIdFitsAFileNameWithItsDownloadFiles() throws {
        let longest = String(repeating: "a", count: DepotClient.maximumContentIdBytes)
        try DepotClient.checkPathName(longest)
        #expect(throws: DepotClientError.self) { try DepotClient.checkPathName(longest + "a") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ContentFolderNameTests-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let digest = String(repeating: "0", count: 64)
        for name in [longest, "\(longest).\(digest).partial", "\(longest).\(digest).partial.etag"] {
            #expect(
                FileManager.default.createFile(atPath: directory.appendingPathComponent(name).path, contents: Data()),
                "\(name.utf8.count) bytes")
        }
    }
}

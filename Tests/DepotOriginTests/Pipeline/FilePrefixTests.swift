import Foundation
#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import Testing

@testable import DepotOrigin

/// An answer whose body starts with a file's bytes carries the first of them in its head's buffer, so that the head
/// never leaves alone; what is left of the file goes out as its region.
@Suite("A file answer's first bytes in its head")
struct FilePrefixTests {
    /// A scratch file of `count` bytes, each its offset modulo 251, opened for reading.
    static func file(_ count: Int) throws -> (path: String, handle: NIOFileHandle, bytes: [UInt8]) {
        let path = NSTemporaryDirectory() + "depot-prefix-\(UUID().uuidString)"
        let bytes = (0..<count).map { UInt8($0 % 251) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        return (path, NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor), bytes)
    }

    static func head(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    @Test func aRangeLongerThanTheHeadsRoomLeavesTheRestAsItsRegion() throws {
        let (path, handle, bytes) = try Self.file(100_000)
        defer {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: path)
        }
        var head = Self.head("HTTP/1.1 206 Partial Content\r\n\r\n")
        let headBytes = head.readableBytes
        var body: [BundleResponseWriter.BodyPart] = [.file(handle, offset: 1000, length: 65_536)]
        #expect(BundleChannelHandler.takeFilePrefix(into: &head, body: &body))
        let carried = BundleChannelHandler.prefixedHeadBytes - headBytes
        #expect(head.readableBytes == BundleChannelHandler.prefixedHeadBytes)
        #expect(Array(head.readableBytesView.dropFirst(headBytes)) == Array(bytes[1000..<(1000 + carried)]))
        guard case .file(_, let offset, let length)? = body.first, body.count == 1 else {
            Issue.record("the rest of the range is not one file part: \(body.count) parts")
            return
        }
        #expect(offset == Int64(1000 + carried))
        #expect(length == Int64(65_536 - carried))
    }

    @Test func aFileThatFitsGoesWholeInTheHeadAndTheNextPartsStay() throws {
        let (path, handle, bytes) = try Self.file(5000)
        defer {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: path)
        }
        var head = Self.head("HTTP/1.1 200 OK\r\n\r\n")
        let headBytes = head.readableBytes
        let trailer = ByteBuffer(string: "\r\n--boundary--\r\n")
        var body: [BundleResponseWriter.BodyPart] = [.file(handle, offset: 0, length: 5000), .bytes(trailer)]
        #expect(BundleChannelHandler.takeFilePrefix(into: &head, body: &body))
        #expect(Array(head.readableBytesView.dropFirst(headBytes)) == bytes)
        guard case .bytes(let rest)? = body.first, body.count == 1 else {
            Issue.record("the part after the file is not what is left: \(body.count) parts")
            return
        }
        #expect(rest == trailer)
    }

    @Test func aBodyStartingWithBytesOrAFileThatEndsEarlyIsLeftAsItIs() throws {
        let (path, handle, _) = try Self.file(1000)
        defer {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: path)
        }
        // A multipart answer starts with its boundary: it is corked instead.
        var head = Self.head("HTTP/1.1 206 Partial Content\r\n\r\n")
        var multipart: [BundleResponseWriter.BodyPart] = [.bytes(ByteBuffer(string: "--b\r\n")), .file(handle, offset: 0, length: 10)]
        #expect(!BundleChannelHandler.takeFilePrefix(into: &head, body: &multipart))
        #expect(multipart.count == 2)
        // A region past the file's end: nothing is taken, the head is unchanged, and the region fails as it would.
        let before = head
        var past: [BundleResponseWriter.BodyPart] = [.file(handle, offset: 900, length: 500)]
        #expect(!BundleChannelHandler.takeFilePrefix(into: &head, body: &past))
        #expect(head == before)
        guard case .file(_, let offset, let length)? = past.first else {
            Issue.record("the region went")
            return
        }
        #expect(offset == 900 && length == 500)
        // A head that already fills the room carries nothing.
        var full = ByteBuffer(repeating: UInt8(ascii: "x"), count: BundleChannelHandler.prefixedHeadBytes)
        var whole: [BundleResponseWriter.BodyPart] = [.file(handle, offset: 0, length: 10)]
        #expect(!BundleChannelHandler.takeFilePrefix(into: &full, body: &whole))
        #expect(whole.count == 1)
    }
}

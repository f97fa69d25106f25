import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// An answer's head and its file's first bytes leave in one segment, as nginx's `tcp_nopush` sends them: the head's
/// buffer carries the start of a file body (``takeFilePrefix(into:body:)``), and an answer whose file parts come
/// after bytes of its own (a multipart answer) is corked with `TCP_CORK`. Whatever the body's size: a head sent alone
/// costs the client a wake-up and a read of its own for every answer, and on a shared machine the client's CPU is the
/// server's.
extension BundleChannelHandler {
    /// Whether an answer with this body is corked: it has file parts (a body of buffers goes out in one write anyway).
    static func shouldCork(_ body: [BundleResponseWriter.BodyPart]) -> Bool {
        body.contains(where: \.isFile)
    }

    /// The most bytes an answer's head buffer carries, its file prefix included: 16 KiB.
    static let prefixedHeadBytes = 16 * 1024

    /// When `body` starts with a file part, reads its first bytes (up to ``prefixedHeadBytes`` with the head) into
    /// `head` and takes them off the part (the part goes when it is read whole); whether any were read. A read
    /// that fails or comes short takes nothing, and the file part goes out as it is.
    ///
    /// Setting and clearing `TCP_CORK` through NIO's channel options costs about 1,800 instructions each, for a
    /// read of a few KiB from the page cache that the file's region would make anyway.
    static func takeFilePrefix(into head: inout ByteBuffer, body: inout [BundleResponseWriter.BodyPart]) -> Bool {
        guard case .file(let handle, let offset, let length)? = body.first, length > 0 else { return false }
        let count = Int(min(length, Int64(max(0, prefixedHeadBytes - head.readableBytes))))
        guard count > 0 else { return false }
        let writerIndex = head.writerIndex
        let read: Int? = try? handle.withUnsafeFileDescriptor { descriptor in
            head.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw in
                var done = 0
                while done < count {
                    let n = pread(descriptor, raw.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                    if n < 0, errno == EINTR { continue }
                    guard n > 0 else { return 0 }
                    done += n
                }
                return done
            }
        }
        guard let read, read == count else {
            head.moveWriterIndex(to: writerIndex)
            return false
        }
        let taken = Int64(count)
        if taken == length {
            body.removeFirst()
        } else {
            body[0] = .file(handle, offset: offset + taken, length: length - taken)
        }
        return true
    }

    /// Sets `TCP_CORK` on the connection's socket; whether it was set (never, off Linux).
    func setCork(_ on: Bool) -> Bool {
        #if os(Linux)
        guard let socketOptions else { return false }
        return (try? socketOptions.setOption(ChannelOptions.tcpOption(NIOBSDSocket.Option(rawValue: TCP_CORK)), value: on ? 1 : 0))
            != nil
        #else
        return false
        #endif
    }
}

import NIOCore

/// Writes one answer as buffers: the head, then its body parts in order, each file part read in chunks
/// (``FileChunkReader``). Used behind TLS, where file regions cannot go.
///
/// The next chunk is read only once the previous one was written to the socket, so a slow reader holds at most one
/// chunk of its answer in the server (plus what TLS made of it), whatever the size of the bundle: the socket's
/// send buffer, not the server's memory, keeps a fast reader busy while the next chunk is read. `promise` completes
/// once the last byte was written, or fails with the first write or read that failed; the answer's head promised
/// every byte, so after a failure the connection must be closed.
final class BufferedBodyWrite {
    private let output: ChannelHandlerContext
    private let reader: FileChunkReader
    /// Holds the bundle descriptors open while a read of this answer runs on the thread pool.
    private let files: BundleFiles
    private let parts: [BundleResponseWriter.BodyPart]
    private let promise: EventLoopPromise<Void>
    /// The part being written.
    private var index = 0
    /// Bytes of the file part being written that were read already.
    private var fileBytesDone: Int64 = 0

    /// Writes `head` and `body` through `output` (the context writes go out of), completing `promise` at the end.
    static func start(
        head: ByteBuffer, body: [BundleResponseWriter.BodyPart], output: ChannelHandlerContext, reader: FileChunkReader,
        files: BundleFiles, promise: EventLoopPromise<Void>
    ) {
        output.write(NIOAny(IOData.byteBuffer(head)), promise: nil)
        BufferedBodyWrite(output: output, reader: reader, files: files, parts: body, promise: promise).writeNext()
    }

    private init(
        output: ChannelHandlerContext, reader: FileChunkReader, files: BundleFiles,
        parts: [BundleResponseWriter.BodyPart], promise: EventLoopPromise<Void>
    ) {
        self.output = output
        self.reader = reader
        self.files = files
        self.parts = parts
        self.promise = promise
    }

    /// Writes the parts up to the next chunk to read, then reads it; completes the promise after the last part.
    private func writeNext() {
        while index < parts.count {
            switch parts[index] {
            case .bytes(let buffer):
                index += 1
                if index == parts.count {
                    output.writeAndFlush(NIOAny(IOData.byteBuffer(buffer)), promise: promise)
                    return
                }
                output.write(NIOAny(IOData.byteBuffer(buffer)), promise: nil)
            case .file(let handle, let offset, let length):
                let remaining = length - fileBytesDone
                guard remaining > 0 else {
                    index += 1
                    fileBytesDone = 0
                    continue
                }
                let count = Int(min(Int64(reader.chunkBytes), remaining))
                let descriptor: CInt
                do {
                    descriptor = try handle.withUnsafeFileDescriptor { $0 }
                } catch {
                    promise.fail(error)
                    return
                }
                reader.read(
                    descriptor: descriptor, offset: offset + fileBytesDone, count: count,
                    allocator: output.channel.allocator, eventLoop: output.eventLoop
                ).assumeIsolated().whenComplete { result in
                    self.chunkRead(result, partLength: length)
                }
                return
            }
        }
        // Only when the last part was a file part that was already complete (an empty range): flushes what is left.
        output.writeAndFlush(NIOAny(IOData.byteBuffer(ByteBuffer())), promise: promise)
    }

    /// Writes a chunk of the file part being written (`partLength` bytes long) that was read, and carries on once
    /// it was written.
    private func chunkRead(_ result: Result<ByteBuffer, any Error>, partLength: Int64) {
        let chunk: ByteBuffer
        switch result {
        case .success(let read): chunk = read
        case .failure(let error):
            promise.fail(error)
            return
        }
        fileBytesDone += Int64(chunk.readableBytes)
        if fileBytesDone == partLength && index == parts.count - 1 {
            output.writeAndFlush(NIOAny(IOData.byteBuffer(chunk)), promise: promise)
            return
        }
        output.writeAndFlush(NIOAny(IOData.byteBuffer(chunk))).assumeIsolated().whenComplete { written in
            switch written {
            case .success: self.writeNext()
            case .failure(let error): self.promise.fail(error)
            }
        }
    }
}

/// Bound to its channel's event loop.
@available(*, unavailable)
extension BufferedBodyWrite: Sendable {}

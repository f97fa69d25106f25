import Foundation

/// Writes a folder as a deterministic POSIX tar (ustar, with pax `path` and `size` records when a name or a
/// size does not fit): the same files give the same bytes whatever their times, owners, modes or the order
/// the file system lists them in. Entries are the folder's regular files, sorted by the UTF-8 bytes of their
/// relative paths, mode 0644, owner 0, time 0; no directory entries (readers create parents). A symbolic
/// link, device or FIFO in the folder is refused: a pack holds files only.
///
/// Reading streams in 1 MiB buffers. Calls block on file I/O: run them off an event loop.
enum PackTar {
    /// Writes the tar of `directory` to `path` (created, or replaced); returns the relative paths written.
    @discardableResult
    static func write(directory: String, to path: String) throws(PackTarError) -> [String] {
        let files = try regularFiles(in: directory)
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let output = FileHandle(forWritingAtPath: path)
        else {
            throw PackTarError("cannot create \(path)")
        }
        defer { try? output.close() }
        do {
            for relative in files {
                let full = (directory as NSString).appendingPathComponent(relative)
                let size = try fileSize(full, relative: relative)
                try output.write(contentsOf: headers(path: relative, size: size))
                try copy(full, size: size, relative: relative, to: output)
            }
            try output.write(contentsOf: Data(count: 1024))
        } catch let error as PackTarError {
            throw error
        } catch {
            throw PackTarError("cannot write \(path): \(error.localizedDescription)")
        }
        return files
    }

    /// The folder's regular files as relative paths, sorted by UTF-8 bytes; anything else is refused.
    static func regularFiles(in directory: String) throws(PackTarError) -> [String] {
        var found: [String] = []
        var pending = [""]
        let manager = FileManager.default
        while let relative = pending.popLast() {
            let full = relative.isEmpty ? directory : (directory as NSString).appendingPathComponent(relative)
            let names: [String]
            do { names = try manager.contentsOfDirectory(atPath: full) } catch {
                throw PackTarError("cannot list \(full)")
            }
            for name in names {
                let child = relative.isEmpty ? name : relative + "/" + name
                let childPath = (directory as NSString).appendingPathComponent(child)
                let type = (try? manager.attributesOfItem(atPath: childPath)[.type] as? FileAttributeType) ?? nil
                switch type {
                case .typeRegular?: found.append(child)
                case .typeDirectory?: pending.append(child)
                case .typeSymbolicLink?:
                    throw PackTarError("\(child) is a symbolic link; a pack holds regular files only")
                default:
                    throw PackTarError("\(child) is not a regular file or a folder")
                }
            }
        }
        return found.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    private static func fileSize(_ path: String, relative: String) throws(PackTarError) -> Int64 {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber else {
            throw PackTarError("cannot read the size of \(relative)")
        }
        return size.int64Value
    }

    private static func copy(_ path: String, size: Int64, relative: String, to output: FileHandle) throws {
        guard let input = FileHandle(forReadingAtPath: path) else {
            throw PackTarError("cannot open \(relative)")
        }
        defer { try? input.close() }
        var left = size
        while left > 0, let chunk = try input.read(upToCount: Int(min(left, 1 << 20))), !chunk.isEmpty {
            try output.write(contentsOf: chunk)
            left -= Int64(chunk.count)
        }
        guard left == 0 else { throw PackTarError("\(relative) changed while it was being read") }
        let padding = Int((512 - size % 512) % 512)
        if padding > 0 { try output.write(contentsOf: Data(count: padding)) }
    }

    // MARK: Headers

    /// The header block(s) of one file: a pax header first when the name or the size needs one.
    static func headers(path: String, size: Int64) -> Data {
        let name = Array(path.utf8)
        let sizeFits = size < 0o77777777777
        var records = ""
        if name.count > 100 { records += paxRecord("path", path) }
        if !sizeFits { records += paxRecord("size", String(size)) }
        var data = Data()
        if !records.isEmpty {
            let body = Array(records.utf8)
            data += header(name: Array("PaxHeader/entry".utf8), size: Int64(body.count), type: UInt8(ascii: "x"))
            data += body
            data += Data(count: (512 - body.count % 512) % 512)
        }
        data += header(name: Array(name.prefix(100)), size: sizeFits ? size : 0, type: UInt8(ascii: "0"))
        return data
    }

    /// One pax record: `<length> <key>=<value>\n`, the length counting itself.
    static func paxRecord(_ key: String, _ value: String) -> String {
        let rest = " \(key)=\(value)\n".utf8.count
        var length = rest + 1
        while String(length).utf8.count + rest > length { length += 1 }
        return "\(length) \(key)=\(value)\n"
    }

    private static func header(name: [UInt8], size: Int64, type: UInt8) -> Data {
        var block = [UInt8](repeating: 0, count: 512)
        func put(_ bytes: [UInt8], at offset: Int) { block.replaceSubrange(offset..<(offset + bytes.count), with: bytes) }
        func octal(_ value: Int64, width: Int) -> [UInt8] {
            let digits = String(value, radix: 8)
            return Array((String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits).utf8) + [0]
        }
        put(name, at: 0)
        put(octal(0o644, width: 8), at: 100)
        put(octal(0, width: 8), at: 108)
        put(octal(0, width: 8), at: 116)
        put(octal(size, width: 12), at: 124)
        put(octal(0, width: 12), at: 136)
        put([UInt8](repeating: 0x20, count: 8), at: 148)
        block[156] = type
        put(Array("ustar".utf8) + [0], at: 257)
        put(Array("00".utf8), at: 263)
        let sum = block.reduce(0) { $0 + Int64($1) }
        put(octal(sum, width: 7) + [0x20], at: 148)
        return Data(block)
    }
}

/// Why a folder could not be written as a tar: one sentence for people.
struct PackTarError: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String

    init(_ description: String) { self.description = description }
}

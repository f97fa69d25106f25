#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Compares a file of one pack with the file at the same path in another, byte for byte, opening both
/// without following links (as the bundle writer does) and checking each is still what its pack recorded.
final class PackFileComparer {
    private static let chunkSize = 1 << 20

    private let baseOpener: ContentsOpener
    private let targetOpener: ContentsOpener
    private let baseBuffer: UnsafeMutableRawBufferPointer
    private let targetBuffer: UnsafeMutableRawBufferPointer

    init(base: Pack, target: Pack) throws(PackError) {
        baseOpener = try ContentsOpener(contentsDirectory: base.contentsDirectory)
        targetOpener = try ContentsOpener(contentsDirectory: target.contentsDirectory)
        baseBuffer = .allocate(byteCount: Self.chunkSize, alignment: 16)
        targetBuffer = .allocate(byteCount: Self.chunkSize, alignment: 16)
    }

    deinit {
        baseBuffer.deallocate()
        targetBuffer.deallocate()
    }

    /// Whether the two files (of equal recorded size) hold the same bytes.
    func sameBytes(_ base: PackFile, _ target: PackFile) throws(PackError) -> Bool {
        let baseSource = try baseOpener.openEntry(base)
        let targetSource = try targetOpener.openEntry(target)
        var offset: Int64 = 0
        while offset < base.size {
            let count = Int(min(base.size - offset, Int64(Self.chunkSize)))
            let left = UnsafeMutableRawBufferPointer(rebasing: baseBuffer[0..<count])
            let right = UnsafeMutableRawBufferPointer(rebasing: targetBuffer[0..<count])
            try baseSource.read(at: offset, into: left)
            try targetSource.read(at: offset, into: right)
            if memcmp(left.baseAddress!, right.baseAddress!, count) != 0 { return false }
            offset += Int64(count)
        }
        try baseSource.checkUnchanged()
        try targetSource.checkUnchanged()
        return true
    }
}

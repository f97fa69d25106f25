/// `withUnsafeBytes` and `withUnsafeMutableBytes` for closures that throw `ArchiveError`: the standard
/// library's versions rethrow untyped errors.
extension Array where Element == UInt8 {
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(ArchiveError) -> R) throws(ArchiveError) -> R {
        let result: Result<R, ArchiveError> = withUnsafeBytes { raw in
            do throws(ArchiveError) { return .success(try body(raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    mutating func withMutableBytes<R>(
        _ body: (UnsafeMutableRawBufferPointer) throws(ArchiveError) -> R
    ) throws(ArchiveError)
        -> R
    {
        let result: Result<R, ArchiveError> = withUnsafeMutableBytes { raw in
            do throws(ArchiveError) { return .success(try body(raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}

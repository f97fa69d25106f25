#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call: which call, and the `errno` it left.
public struct SystemCallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call that failed, as it is named in its manual page (`open`, `pread`).
    public let call: String
    /// The `errno` it left.
    public let code: Int32

    /// The failure of `call`, with `code` (the current `errno` unless given).
    public init(_ call: String, code: Int32 = errno) {
        self.call = call
        self.code = code
    }

    /// `call failed: strerror(code)`.
    public var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
}

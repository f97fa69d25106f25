#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The text of the `errno` a failed system call left.
func systemErrorText(_ code: Int32 = errno) -> String {
    String(cString: strerror(code))
}

/// `close(2)`, under a name that does not clash with the methods called `close`.
func systemClose(_ descriptor: Int32) {
    _ = close(descriptor)
}

/// `write(2)`, under a name that does not clash with the methods called `write`.
func systemWrite(_ descriptor: Int32, _ base: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, base, count)
}

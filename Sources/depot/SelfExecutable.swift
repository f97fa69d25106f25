import Foundation

/// The path of the running `depot` binary, for the child processes it starts of itself.
enum SelfExecutable {
    /// `/proc/self/exe` resolved where there is one (Linux), else the path the process was started by.
    static var path: String {
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return resolved }
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
    }
}

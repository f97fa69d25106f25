import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Runs the purge command: the configured program and arguments followed by one argument per tag, the
/// purge's JSON on standard input, `DEPOT_PURGE_REASON` added to Depot's environment, standard output
/// discarded and the end of standard error kept for the log. Exit status 0 is success.
///
/// The command runs in a process group of its own, so a command that outlives its time limit is killed
/// with every process it started (a shell script's `sleep` or `curl` included).
package struct PurgeCommandSender: PurgeSender {
    /// The program (an absolute path) and its arguments.
    let command: [String]

    /// A sender running `command` (the program, then its arguments).
    package init(command: [String]) { self.command = command }

    /// Runs the command for `purge`, killing it with its children after `timeoutSeconds`.
    package func send(_ purge: PurgeRequest, body: [UInt8], timeoutSeconds: Int) async throws(PurgeFailure) {
        let scratch = NSTemporaryDirectory() + "depot-purge-\(UUID().uuidString)"
        let inputPath = scratch + ".json"
        let errorPath = scratch + ".stderr"
        defer {
            unlink(inputPath)
            unlink(errorPath)
        }
        guard FileManager.default.createFile(atPath: inputPath, contents: Data(body)) else {
            throw PurgeFailure("the purge command was not run: its input could not be written to \(NSTemporaryDirectory())")
        }
        let pid = try spawn(arguments: command + purge.tags, reason: purge.reason, input: inputPath, errors: errorPath)
        let status = await Self.wait(for: pid, seconds: timeoutSeconds)
        let stderr = Self.tail(of: errorPath)
        guard let status else {
            throw PurgeFailure("the purge command did not finish within \(timeoutSeconds) seconds and was killed")
        }
        let exitCode = (status >> 8) & 0xFF
        let signal = status & 0x7F
        if signal != 0 {
            throw PurgeFailure("the purge command was killed by signal \(signal)" + stderr)
        }
        guard exitCode == 0 else {
            throw PurgeFailure("the purge command exited with status \(exitCode)" + stderr)
        }
    }

    /// Starts the command in a new process group; returns its process id.
    private func spawn(arguments: [String], reason: String, input: String, errors: String) throws(PurgeFailure) -> pid_t {
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        var attributes: posix_spawnattr_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // A group of its own (killed whole on timeout), and the signals Depot ignores (SIGPIPE) back to default.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var noMask = sigset_t()
        sigemptyset(&noMask)
        posix_spawnattr_setsigmask(&attributes, &noMask)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        var environment = ProcessInfo.processInfo.environment
        environment["DEPOT_PURGE_REASON"] = reason
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw PurgeFailure("the purge command \(arguments[0]) could not be started: \(String(cString: strerror(result)))")
        }
        return pid
    }

    /// The command's wait status, or nil when it ran past `seconds` (it and its group are then killed and reaped).
    private static func wait(for pid: pid_t, seconds: Int) async -> Int32? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var pause = Duration.milliseconds(2)
        while true {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { return status }
            if reaped < 0 && errno != EINTR { return 0x7F00 }  // not ours to reap any more: report a failure
            if ContinuousClock.now >= deadline { break }
            // Polled rather than blocked on, so no thread is held while a command runs; a cancelled task
            // (the server stopping) stops waiting and kills the command like a timeout.
            do { try await Task.sleep(for: pause) } catch { break }
            pause = min(pause * 2, .milliseconds(50))
        }
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return nil
    }

    /// The last few hundred bytes the command wrote to standard error, as `: <text>`, or nothing.
    private static func tail(of path: String) -> String {
        guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else { return "" }
        let text = String(decoding: data.suffix(400), as: UTF8.self)
            .split(whereSeparator: \.isNewline).joined(separator: " / ").trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? "" : ": " + text
    }
}

import FirnCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child started with `posix_spawn`, whose exit a thread of its own waits
/// for with `waitpid` (a `BackgroundThread`): what `ChildProcess` runs on.
///
/// Why not Foundation's `Process`: on Linux it learns that a child exited
/// when a socket the child inherited reaches its end, and that socket is not
/// close-on-exec. A child another thread spawns at the same moment inherits
/// it too (`Process` closes in the child only the descriptors it listed
/// before), and the first child's exit is then seen only when the second
/// one ends. In the replacement races an `import` that was refused at once
/// looked as if it ran for the whole 12 s of the writers started beside it,
/// and a race made no replacement at all. Here every descriptor made for a
/// child is close-on-exec in this process, the child closes everything but
/// 0, 1 and 2 before it runs the program, and the exit is `waitpid`'s.
///
/// The child starts as from a shell: an empty signal mask (threads of this
/// process block signals), SIGPIPE at its default, a process group of its
/// own (as `Process` did: a signal to this test run's group leaves it alone).
final class SpawnedProcess: Sendable {
    /// How the child ended.
    struct Exit: Sendable {
        /// The exit code, or the signal's number when a signal ended it.
        let status: Int32
        let signalled: Bool
    }

    enum Failure: Error, CustomStringConvertible {
        case system(String, errno: Int32)
        var description: String {
            switch self {
            case let .system(what, code): return "\(what): \(String(cString: strerror(code))) (errno \(code))"
            }
        }
    }

    let pid: pid_t
    /// The read ends of the child's stdout and stderr, the caller's to read
    /// and close (the write ends are the child's alone: reads end at its exit).
    let output: Int32
    let errors: Int32
    /// Waits for the exit with `waitpid`.
    private let reaper: BackgroundThread<Exit>

    /// Starts `executable` with `arguments`; `stdin` (nil: /dev/null) becomes
    /// its 0, and new pipes its 1 and 2; `environment` is added to this
    /// process's; `directory` is its working directory when given.
    init(_ executable: String, _ arguments: [String], environment: [String: String], directory: String?,
         stdin: Int32?) throws {
        let out = try Self.pipe()
        let err: (read: Int32, write: Int32)
        do { err = try Self.pipe() } catch {
            close(out.read); close(out.write)
            throw error
        }
        defer { close(out.write); close(err.write) }
        let child: pid_t
        do {
            child = try Self.spawn(executable, arguments, environment: environment, directory: directory,
                                   stdin: stdin, stdout: out.write, stderr: err.write)
        } catch {
            close(out.read); close(err.read)
            throw error
        }
        pid = child
        output = out.read
        errors = err.read
        reaper = BackgroundThread {
            var status: Int32 = 0
            let reaped = try? SystemCall.result({ waitpid(child, &status, 0) }).get()
            let termination = status & 0x7f
            guard reaped == child else { return Exit(status: -1, signalled: false) }
            return termination != 0 && termination != 0x7f
                ? Exit(status: termination, signalled: true)
                : Exit(status: (status >> 8) & 0xff, signalled: false)
        }
    }

    /// How it ended; nil while it runs.
    var exit: Exit? { reaper.join(timeout: .zero) }

    /// Waits up to `timeout` for the end; nil if it still runs.
    func wait(timeout: Duration) -> Exit? { reaper.join(timeout: timeout) }

    /// The child's pid, `stdin`, `stdout` and `stderr` its 0, 1 and 2.
    private static func spawn(_ executable: String, _ arguments: [String], environment: [String: String],
                              directory: String?, stdin: Int32?, stdout: Int32, stderr: Int32) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        try Self.check("posix_spawn_file_actions_init", posix_spawn_file_actions_init(&actions))
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin {
            try Self.check("dup2 stdin", posix_spawn_file_actions_adddup2(&actions, stdin, 0))
        } else {
            try Self.check("open /dev/null", posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0))
        }
        try Self.check("dup2 stdout", posix_spawn_file_actions_adddup2(&actions, stdout, 1))
        try Self.check("dup2 stderr", posix_spawn_file_actions_adddup2(&actions, stderr, 2))
        if let directory {
            guard let chdir = Self.addChdir else { throw Failure.system("posix_spawn_file_actions_addchdir_np", errno: ENOSYS) }
            try Self.check("chdir \(directory)", directory.withCString { chdir(&actions, $0) })
        }
        try Self.closeTheRest(&actions)

        var attributes = posix_spawnattr_t()
        try Self.check("posix_spawnattr_init", posix_spawnattr_init(&attributes))
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), pipeSignal = sigset_t()
        sigemptyset(&noSignals)
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        try Self.check("posix_spawnattr_setsigmask", posix_spawnattr_setsigmask(&attributes, &noSignals))
        try Self.check("posix_spawnattr_setsigdefault", posix_spawnattr_setsigdefault(&attributes, &pipeSignal))
        try Self.check("posix_spawnattr_setpgroup", posix_spawnattr_setpgroup(&attributes, 0))
        let flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP
        try Self.check("posix_spawnattr_setflags", posix_spawnattr_setflags(&attributes, Int16(flags)))

        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0.key)=\($0.value)" }
        var child: pid_t = 0
        let result = Self.withCStrings([executable] + arguments) { argv in
            Self.withCStrings(variables) { envp in
                posix_spawn(&child, executable, &actions, &attributes, argv, envp)
            }
        }
        try Self.check("posix_spawn \(executable)", result)
        return child
    }

    /// A pipe whose two ends are close-on-exec here and at 3 or above (so
    /// never one of 0, 1, 2 a child gets: CI may run this with stdin closed).
    static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard let pipe2 = makePipe else { throw Failure.system("pipe2", errno: ENOSYS) }
        guard pipe2(&ends, O_CLOEXEC) == 0 else { throw Failure.system("pipe2", errno: errno) }
        return (try aboveStandard(ends[0]), try aboveStandard(ends[1]))
    }

    private static func aboveStandard(_ fd: Int32) throws -> Int32 {
        guard fd < 3 else { return fd }
        let moved = fcntl(fd, F_DUPFD_CLOEXEC, 3)
        let code = errno
        Glibc.close(fd)
        guard moved >= 0 else { throw Failure.system("fcntl(F_DUPFD_CLOEXEC)", errno: code) }
        return moved
    }

    private static func check(_ what: String, _ result: Int32) throws {
        if result != 0 { throw Failure.system(what, errno: result) }
    }

    private typealias FileAction = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias ChdirAction = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>,
                                                    UnsafePointer<CChar>) -> Int32
    private typealias PipeCall = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    /// `pipe2`, glibc 2.34's `posix_spawn_file_actions_addclosefrom_np` and
    /// 2.29's `…_addchdir_np`, which the Glibc module does not declare.
    private static let makePipe: PipeCall? = dlsym(nil, "pipe2").map { unsafeBitCast($0, to: PipeCall.self) }
    private static let addCloseFrom: FileAction? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: FileAction.self) }
    private static let addChdir: ChdirAction? = dlsym(nil, "posix_spawn_file_actions_addchdir_np")
        .map { unsafeBitCast($0, to: ChdirAction.self) }

    /// The child closes every descriptor from 3 up: in one step where glibc
    /// can, else each one open here now (those opened later by other
    /// threads are close-on-exec when this file made them).
    private static func closeTheRest(_ actions: inout posix_spawn_file_actions_t) throws {
        if let closeFrom = addCloseFrom {
            try check("posix_spawn_file_actions_addclosefrom_np", closeFrom(&actions, 3))
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap({ Int32($0) }) where fd >= 3 {
            try check("posix_spawn_file_actions_addclose", posix_spawn_file_actions_addclose(&actions, fd))
        }
    }

    private static func withCStrings<R>(_ strings: [String],
                                        _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }
}

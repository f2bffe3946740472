#if canImport(Glibc)
import Glibc
#endif

/// What one child process did: exit status, wall time, and its peak
/// resident set from `wait4`'s rusage (ru_maxrss, KiB on Linux, reported in bytes).
struct ChildResult {
    var status: Int32
    var seconds: Double
    var maxRSSBytes: Double
    var stderr: String
}

struct ChildFailed: Error, CustomStringConvertible {
    let argv: [String]
    let result: ChildResult
    var description: String {
        "\(argv.joined(separator: " ")) exited with \(result.status): \(result.stderr.suffix(2000))"
    }
}

/// Runs `argv` (searched in PATH), stdout to `stdoutPath`, stderr captured.
@discardableResult
func runChild(_ argv: [String], stdoutPath: String = "/dev/null", scratch: String, check: Bool = true,
              environment extra: [String: String] = [:]) throws -> ChildResult {
    let errPath = "\(scratch)/.child-stderr-\(getpid())"
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let cArgs = argv.map { strdup($0) } + [nil]
    defer { for p in cArgs { free(p) } }
    // The parent's environment, with `extra` added or replacing.
    var env: [String] = []
    var e = environ
    while let entry = e.pointee {
        let s = String(cString: entry)
        if let eq = s.firstIndex(of: "="), extra[String(s[..<eq])] != nil {} else { env.append(s) }
        e += 1
    }
    for (k, v) in extra { env.append("\(k)=\(v)") }
    let cEnv = env.map { strdup($0) } + [nil]
    defer { for p in cEnv { free(p) } }
    var pid: pid_t = 0
    let start = ContinuousClock.now
    let rc = cArgs.withUnsafeBufferPointer { buf in
        cEnv.withUnsafeBufferPointer { envBuf in
            posix_spawnp(&pid, argv[0], &actions, nil, UnsafeMutablePointer(mutating: buf.baseAddress!),
                         UnsafeMutablePointer(mutating: envBuf.baseAddress!))
        }
    }
    guard rc == 0 else {
        throw ChildFailed(argv: argv, result: ChildResult(status: -1, seconds: 0, maxRSSBytes: 0,
                                                          stderr: "cannot start: \(String(cString: strerror(rc)))"))
    }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 {
        if errno != EINTR { break }
    }
    let d = ContinuousClock.now - start
    let seconds = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    let exited = status & 0x7f == 0
    let code: Int32 = exited ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    let result = ChildResult(status: code, seconds: seconds, maxRSSBytes: Double(usage.ru_maxrss) * 1024,
                             stderr: readSmallFile(errPath))
    unlink(errPath)
    if check && code != 0 { throw ChildFailed(argv: argv, result: result) }
    return result
}

/// The numbers a child printed to `path`, separated by spaces and newlines
/// (anything that does not parse as a `T` is skipped).
func numbers<T: LosslessStringConvertible>(in path: String, as _: T.Type = T.self) -> [T] {
    readSmallFile(path).split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { T(String($0)) }
}

func readSmallFile(_ path: String) -> String {
    guard let f = fopen(path, "r") else { return "" }
    defer { fclose(f) }
    var out = [UInt8]()
    var buf = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&buf, 1, buf.count, f)
        if n <= 0 { break }
        out.append(contentsOf: buf[0..<n])
        if out.count > 1 << 20 { break }
    }
    return String(decoding: out, as: UTF8.self)
}

func fileSize(_ path: String) -> UInt64 {
    var st = stat()
    return stat(path, &st) == 0 ? UInt64(st.st_size) : 0
}

func fileExists(_ path: String) -> Bool {
    var st = stat()
    return stat(path, &st) == 0
}

/// Removes a database file and whatever its engine keeps beside it.
func removeDatabase(_ path: String) {
    for suffix in ["", ".lock", "-lock", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
}

func isExecutable(_ path: String) -> Bool { access(path, X_OK) == 0 }

/// Finds a program in PATH.
func which(_ name: String) -> String? {
    let path = String(cString: getenv("PATH") ?? strdup("/usr/bin:/bin"))
    for dir in path.split(separator: ":") where isExecutable("\(dir)/\(name)") { return "\(dir)/\(name)" }
    return nil
}

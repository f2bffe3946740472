#if canImport(Glibc)
import Glibc
#endif

/// Temporary files that name and lock their owner, so the leftovers of a
/// killed process can be told apart from files still being written.
///
/// A temporary file is named `<prefix><pid>-<random>` (both decimal) in the
/// directory of the file it will become: `.<name>.firn-tmp-<pid>-<random>` for
/// the toolkit's outputs, `<name>.creating-<pid>-<random>` for a new database.
/// Its creator holds an exclusive `flock` on it for as long as it has the
/// file open (the lock belongs to the open file description: other
/// descriptors of the same file opening and closing do not release it, and
/// the kernel drops it when the process dies, however it dies).
///
/// `removeLeftovers` unlinks a file only when all of these hold: its name is
/// exactly `<prefix><pid>-<random>` for the destination at hand; no process
/// with that pid exists (`kill(pid, 0)` fails with ESRCH); and it can take the
/// exclusive lock itself without waiting — so a live owner's file is never
/// removed, even when its pid is not visible from here (another pid
/// namespace) or a new process has reused a dead owner's pid.
package enum OwnedTemporaryFile {
    /// A fresh name for a temporary file of this process: `<prefix><pid>-<random>`.
    package static func name(prefix: String) -> String {
        "\(prefix)\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Takes the owner's exclusive lock on a temporary file just created.
    /// False when another process holds it: a sweeper is about to remove the
    /// file, so the creator picks another name (and leaves this one to it).
    package static func lock(_ descriptor: Int32) -> Bool {
        if case .success = SystemCall.result({ flock(descriptor, LOCK_EX | LOCK_NB) }) { return true }
        return false
    }

    /// Removes the temporary files in `directory` named `<prefix><pid>-<random>`
    /// for one of `prefixes` whose owner is gone (see the type's comment).
    /// Best effort: a file that cannot be examined is left alone. Returns
    /// the names removed.
    @discardableResult
    package static func removeLeftovers(in directory: String, prefixes: [String]) -> [String] {
        var removed: [String] = []
        for name in candidates(in: directory, prefixes: prefixes) {
            let path = directory == "/" ? "/" + name : directory + "/" + name
            if removeIfAbandoned(path) { removed.append(name) }
        }
        return removed
    }

    /// The owner pid in `name` when it is exactly `<prefix><pid>-<random>`.
    static func ownerPID(_ name: String, prefix: String) -> Int32? {
        let bytes = Array(name.utf8)
        let head = Array(prefix.utf8)
        guard !head.isEmpty, bytes.count > head.count, Array(bytes[..<head.count]) == head else { return nil }
        let parts = bytes[head.count...].split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard parts.count == 2,
              parts.allSatisfy({ !$0.isEmpty && $0.count <= 10 && $0.allSatisfy { (0x30...0x39).contains($0) } }),
              let pid = Int32(String(decoding: parts[0], as: UTF8.self)), pid > 0,
              UInt32(String(decoding: parts[1], as: UTF8.self)) != nil else { return nil }
        return pid
    }

    /// Names in `directory` matching the pattern whose pid no longer exists.
    private static func candidates(in directory: String, prefixes: [String]) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            for prefix in prefixes {
                guard let pid = ownerPID(name, prefix: prefix) else { continue }
                if kill(pid, 0) != 0 && errno == ESRCH { names.append(name) }
                break
            }
        }
        return names
    }

    /// Unlinks `path` if it is a regular file nobody holds locked, still the
    /// same file when it is unlinked.
    private static func removeIfAbandoned(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var opened = stat()
        guard fstat(fd, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG,
              flock(fd, LOCK_EX | LOCK_NB) == 0 else { return false }
        var current = stat()
        guard lstat(path, &current) == 0, current.st_dev == opened.st_dev, current.st_ino == opened.st_ino else { return false }
        return unlink(path) == 0
    }
}

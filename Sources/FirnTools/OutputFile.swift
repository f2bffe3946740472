import FirnCore
#if canImport(Glibc)
import Glibc
#endif

/// Writing a file the safe way: into a temporary file in the destination's
/// directory (registered for removal on SIGINT), fsync, then an atomic
/// rename into place and an fsync of the directory. Until `commit`, the
/// destination is untouched.
///
/// The temporary file is `.<name>.firn-tmp-<pid>-<random>`, locked by this
/// process while it is open (`OwnedTemporaryFile`). A run that was killed
/// (SIGKILL, a crash, power loss) cannot remove its own, so every new
/// `OutputFile` first removes the leftovers for its destination whose
/// owner is gone — and those of a killed database creation
/// (`<name>.creating-<pid>-<random>`).
package final class OutputFile {
    package let destination: String
    package let temporaryPath: String
    package private(set) var fd: Int32
    /// False: an existing destination is refused, also one that appears
    /// while the output is being written (the commit links, it does not rename).
    package let replace: Bool
    private var finished = false

    /// Creates the temporary file. `replace` false refuses an existing
    /// destination (exit 73) before anything is written.
    package init(destination: String, replace: Bool) throws(ToolError) {
        self.destination = destination
        self.replace = replace
        var info = stat()
        if lstat(destination, &info) == 0 {
            // A directory cannot be renamed over: refused now, not after the work.
            if info.st_mode & S_IFMT == S_IFDIR {
                throw ToolError.cannotCreate(path: destination, detail: "is a directory (name a file to write)")
            }
            if !replace { throw ToolError.outputExists(path: destination) }
        }
        let dir = OutputFile.directory(of: destination)
        let base = fileName(of: destination)
        let prefix = ".\(base.isEmpty ? "output" : base).firn-tmp-"
        OwnedTemporaryFile.removeLeftovers(in: dir, prefixes: base.isEmpty ? [prefix] : [prefix, base + ".creating-"])
        var attempts = 0
        while true {
            attempts += 1
            let path = (dir == "/" ? "/" : dir + "/") + OwnedTemporaryFile.name(prefix: prefix)
            Interruption.register(path)
            let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                let code = errno
                Interruption.unregister(path)
                if code == EEXIST && attempts < 8 { continue }
                throw OutputFile.creationError(destination, directory: dir, errno: code)
            }
            // A sweeper holding the lock is about to remove the file: another name.
            guard OwnedTemporaryFile.lock(fd) else {
                close(fd)
                Interruption.unregister(path)
                if attempts < 8 { continue }
                throw ToolError.io(path: destination, operation: "lock a temporary file in \(dir)", errno: EWOULDBLOCK)
            }
            temporaryPath = path
            self.fd = fd
            return
        }
    }

    /// An errno from creating the temporary file, naming the destination.
    static func creationError(_ destination: String, directory: String, errno code: Int32) -> ToolError {
        switch code {
        case ENOENT: return .cannotCreate(path: destination, detail: "the directory \(directory) does not exist")
        case ENOTDIR: return .cannotCreate(path: destination, detail: "\(directory) is not a directory")
        default: return .writing(destination, "create a temporary file in \(directory)", errno: code)
        }
    }

    deinit { discard() }

    static func directory(of path: String) -> String { parentDirectory(of: path) }

    /// Appends `bytes` (retrying short writes and EINTR).
    package func write(_ bytes: UnsafeRawBufferPointer) throws(ToolError) {
        try OutputFile.writeAll(fd: fd, bytes, path: destination)
    }

    /// Appends `bytes`.
    package func write(_ bytes: [UInt8]) throws(ToolError) {
        let failure: ToolError? = bytes.withUnsafeBytes { buffer in
            do throws(ToolError) {
                try OutputFile.writeAll(fd: fd, buffer, path: destination)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    static func writeAll(fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(ToolError) {
        if let error = SystemCall.writeAll(fd, bytes) { throw ToolError.writing(path, "write", errno: error.code) }
    }

    package func sync() throws(ToolError) {
        if case let .failure(error) = SystemCall.result({ fsync(fd) }) {
            throw ToolError.writing(destination, "fsync", errno: error.code)
        }
    }

    /// fsync, rename into place, fsync the directory. Signals wait until it is done.
    package func commit() throws(ToolError) {
        try sync()
        try Interruption.critical { () throws(ToolError) in
            if replace {
                if rename(temporaryPath, destination) != 0 {
                    let code = errno
                    throw ToolError.writing(destination, "rename into place", errno: code)
                }
            } else {
                // link fails with EEXIST when the destination appeared
                // meanwhile (another process created it): never clobber it.
                if link(temporaryPath, destination) != 0 {
                    let code = errno
                    if code == EEXIST { throw ToolError.outputExists(path: destination) }
                    throw ToolError.writing(destination, "link into place", errno: code)
                }
                unlink(temporaryPath)
            }
            finished = true
            Interruption.unregister(temporaryPath)
            close(fd)
            fd = -1
            do { try syncDirectory(of: destination) } catch {
                throw ToolError.io(path: destination, operation: "fsync of the directory", errno: EIO)
            }
        }
    }

    /// Removes the temporary file (nothing happens after `commit`).
    package func discard() {
        guard !finished else { return }
        finished = true
        if fd >= 0 { close(fd) }
        fd = -1
        unlink(temporaryPath)
        Interruption.unregister(temporaryPath)
    }
}

/// Free space on the file system holding a path (statvfs).
package enum DiskSpace {
    package static func available(at path: String) throws(ToolError) -> UInt64 {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { throw ToolError.io(path: path, operation: "statvfs", errno: errno) }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }
}

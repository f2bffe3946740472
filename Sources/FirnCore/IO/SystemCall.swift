#if canImport(Glibc)
import Glibc
#endif
import CFirnShims

/// The one system-call layer of the package: every call that a signal can
/// interrupt (EINTR) is retried here and nowhere else, whole-buffer writes
/// and reads loop here, and a failure comes out as the call's `Errno` for
/// the caller to turn into its own typed error (`FirnError.io`, a tool's
/// `ToolError`). A loop on EINTR anywhere else is a defect.
package enum SystemCall {
    /// Runs a call that reports failure as -1 with errno, retrying on
    /// EINTR: its result, or the errno it failed with. `stopOnSignal`,
    /// asked after each interruption, ends the wait instead (a tool that
    /// was asked to stop by Ctrl-C): the failure is then EINTR.
    @inline(__always)
    package static func result<T: FixedWidthInteger>(
        stopOnSignal: () -> Bool = { false }, _ call: () -> T
    ) -> Result<T, Errno> {
        while true {
            let value = call()
            if value >= 0 { return .success(value) }
            let code = errno
            if code == EINTR, !stopOnSignal() { continue }
            return .failure(Errno(code))
        }
    }

    /// `result` for the engine: a failure becomes `FirnError.io` naming the
    /// file and call (`operation` is only built then: a commit makes several calls).
    @inline(__always)
    static func run<T: FixedWidthInteger>(
        path: String, _ operation: @autoclosure () -> String, _ call: () -> T
    ) throws(FirnError) -> T {
        switch result(call) {
        case let .success(value): return value
        case let .failure(error): throw FirnError.io(path: path, operation: operation(), errno: error.code)
        }
    }

    /// Runs a call that returns 0 or an error number itself (the OFD lock
    /// shims' convention), retrying on EINTR: 0 or the error number.
    @inline(__always)
    package static func status(_ call: () -> Int32) -> Int32 {
        while true {
            let code = call()
            if code != EINTR { return code }
        }
    }

    /// Writes all of `bytes` to `fd` at its file position, retrying short
    /// writes and EINTR: nil, or the errno of the write that failed.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Errno? {
        guard let base = bytes.baseAddress else { return nil }
        var done = 0
        while done < bytes.count {
            switch result({ write(fd, base + done, bytes.count - done) }) {
            case let .success(written): done += written
            case let .failure(error): return error
            }
        }
        return nil
    }

    /// Writes all of `bytes` at `offset`, retrying short writes and EINTR:
    /// nil, or the errno of the write that failed (EIO for a write of 0
    /// bytes, which would otherwise loop forever).
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: UInt64) -> Errno? {
        guard let base = bytes.baseAddress else { return nil }
        var done = 0
        while done < bytes.count {
            switch result({ pwrite(fd, base + done, bytes.count - done, off_t(offset) + off_t(done)) }) {
            case .success(0): return Errno(EIO)
            case let .success(written): done += written
            case let .failure(error): return error
            }
        }
        return nil
    }

    /// Starts writing `count` bytes at `offset` back to the disk without
    /// waiting (a whole-file write that ends in an fsync: the disk works
    /// while the writer goes on, and the fsync waits for the rest only).
    /// Nil, or the errno; a file system without the call fails with EINVAL or ENOSYS.
    package static func startWriteback(_ fd: Int32, offset: UInt64, count: UInt64) -> Errno? {
        guard offset <= UInt64(Int64.max), count <= UInt64(Int64.max) else { return Errno(EINVAL) }
        switch result({ firn_start_writeback(fd, Int64(offset), Int64(count)) }) {
        case .success: return nil
        case let .failure(error): return error
        }
    }

    /// A second, write-only descriptor of the existing file `path` whose
    /// writes bypass the page cache (`O_DIRECT`): the descriptor, or the
    /// errno (EINVAL where the file system has no direct I/O).
    package static func openDirectWriter(_ path: String) -> Result<Int32, Errno> {
        while true {
            let fd = firn_open_direct_writer(path)
            if fd >= 0 { return .success(fd) }
            if -fd != EINTR { return .failure(Errno(-fd)) }
        }
    }

    /// `writeAll` of an array's bytes.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Errno? {
        bytes.withUnsafeBytes { writeAll(fd, $0) }
    }

    /// Reads from `offset` until `buffer` is full or the file ends,
    /// retrying short reads and EINTR: how many bytes were read, or the
    /// errno of the read that failed.
    package static func readAll(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> Result<Int, Errno> {
        guard let base = buffer.baseAddress else { return .success(0) }
        var done = 0
        while done < buffer.count {
            switch result({ pread(fd, base + done, buffer.count - done, off_t(offset) + off_t(done)) }) {
            case let .success(0): return .success(done)
            case let .success(got): done += got
            case let .failure(error): return .failure(error)
            }
        }
        return .success(done)
    }

    /// Whether a directory entry named `path` exists. `followingLinks`:
    /// what a symbolic link points to must exist (`stat`); otherwise the
    /// name itself, a dangling link included (`lstat`) — the question a
    /// tool asks before it creates or replaces a file at that name.
    package static func exists(_ path: String, followingLinks: Bool) -> Bool {
        var info = stat()
        return (followingLinks ? stat(path, &info) : lstat(path, &info)) == 0
    }

    /// Sleeps `nanoseconds` in full: a signal does not cut the sleep short.
    package static func sleep(nanoseconds: UInt64) {
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }
}

/// An errno value from a failed system call.
package struct Errno: Error, Equatable, Sendable {
    package let code: Int32
    package init(_ code: Int32) { self.code = code }
    /// A signal interrupted the call and the caller asked to stop
    /// (`SystemCall.result(stopOnSignal:)`).
    package var isInterruption: Bool { code == EINTR }
}

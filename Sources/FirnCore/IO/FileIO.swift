#if canImport(Glibc)
import Glibc
#endif
import CFirnShims

/// The narrow I/O layer every write to a database file goes through:
/// positioned writes, data syncs and extension. Reads go through the map.
/// Tests wrap it to record, reorder, drop, tear and fail writes and syncs.
public protocol FileIO: AnyObject, Sendable {
    var path: String { get }
    /// The descriptor the store maps for reading.
    var descriptor: Int32 { get }
    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(FirnError)
    /// Writes `buffers` back to back from `offset`, as if concatenated: a
    /// commit's contiguous pages go to the kernel in one call (pwritev).
    func write(gathering buffers: [UnsafeRawBufferPointer], at offset: UInt64) throws(FirnError)
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(FirnError) -> Int
    /// fdatasync: everything written before is durable when it returns.
    func sync() throws(FirnError)
    /// Grows the file to `size` bytes, reserving the blocks where the file
    /// system allows, so running out of space surfaces here and not later.
    func extend(to size: UInt64) throws(FirnError)
    func size() throws(FirnError) -> UInt64
    func close()
}

extension FileIO {
    /// One `write` per buffer: wrappers that record, reorder, tear or fail
    /// writes keep seeing every page as its own write.
    public func write(gathering buffers: [UnsafeRawBufferPointer], at offset: UInt64) throws(FirnError) {
        var position = offset
        for buffer in buffers {
            try write(buffer, at: position)
            position += UInt64(buffer.count)
        }
    }
}

/// `FileIO` over a POSIX descriptor: pwrite, pwritev, pread, fdatasync, fallocate.
package final class POSIXFile: FileIO, @unchecked Sendable {
    package let path: String
    package let descriptor: Int32
    private var closed = false

    /// Opens `path`. `create` makes it (exclusively) when missing.
    package init(path: String, writable: Bool, create: Bool = false) throws(FirnError) {
        self.path = path
        // O_NONBLOCK: opening a FIFO read-only would otherwise wait for a
        // writer forever (hostile input); fstat below rejects non-regular files,
        // and the flag has no effect on regular files.
        var flags = (writable ? O_RDWR : O_RDONLY) | O_NONBLOCK
        if create { flags |= O_CREAT | O_EXCL }
        let fd = firn_open(path, flags, 0o644)
        if fd < 0 {
            let code = -fd
            switch code {
            case ENOENT: throw FirnError.notFound(path: path, detail: "no such file")
            case ENOSPC, EDQUOT: throw FirnError.noSpace(path: path, detail: "cannot create the file")
            default: throw FirnError.io(path: path, operation: create ? "create" : "open", errno: code)
            }
        }
        descriptor = fd
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw FirnError.io(path: path, operation: "fstat", errno: code)
        }
        if info.st_mode & S_IFMT == S_IFDIR {
            Glibc.close(fd)
            throw FirnError.notFound(path: path, detail: "is a directory, not a database file")
        }
        if info.st_mode & S_IFMT != S_IFREG {
            Glibc.close(fd)
            throw FirnError.notFound(path: path, detail: "is not a regular file")
        }
    }

    deinit { close() }

    package func close() {
        if !closed {
            closed = true
            Glibc.close(descriptor)
        }
    }

    package func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(FirnError) {
        if let error = SystemCall.writeAll(descriptor, bytes, at: offset) {
            throw FirnError.io(path: path, operation: "pwrite at offset \(offset)", errno: error.code)
        }
    }

    package func write(gathering buffers: [UnsafeRawBufferPointer], at offset: UInt64) throws(FirnError) {
        if buffers.count == 1 { return try write(buffers[0], at: offset) }
        var vectors = buffers.map { iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.baseAddress), iov_len: $0.count) }
        var first = 0
        var position = offset
        while first < vectors.count {
            // At most IOV_MAX (1024 on Linux) vectors per call.
            let count = min(vectors.count - first, 1024)
            let n = try vectors.withUnsafeMutableBufferPointer { (all) throws(FirnError) -> Int in
                try SystemCall.run(path: path, "pwritev at offset \(position)") {
                    pwritev(descriptor, all.baseAddress! + first, Int32(count), off_t(position))
                }
            }
            if n == 0 { throw FirnError.io(path: path, operation: "pwritev at offset \(position)", errno: EIO) }
            // A short write: skip what was written, resume mid-vector.
            var done = n
            position += UInt64(n)
            while done > 0 && first < vectors.count {
                if done >= vectors[first].iov_len {
                    done -= vectors[first].iov_len
                    first += 1
                } else {
                    vectors[first].iov_base = vectors[first].iov_base.map { $0 + done }
                    vectors[first].iov_len -= done
                    done = 0
                }
            }
        }
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(FirnError) -> Int {
        switch SystemCall.readAll(descriptor, into: buffer, at: offset) {
        case let .success(count): return count
        case let .failure(error): throw FirnError.io(path: path, operation: "pread at offset \(offset)", errno: error.code)
        }
    }

    package func sync() throws(FirnError) {
        _ = try SystemCall.run(path: path, "fdatasync") { fdatasync(descriptor) }
    }

    package func extend(to size: UInt64) throws(FirnError) {
        let current = try self.size()
        guard size > current else { return }
        let code = firn_fallocate(descriptor, Int64(current), Int64(size - current))
        if code == 0 { return }
        if code == ENOSPC || code == EDQUOT {
            throw FirnError.noSpace(path: path, detail: "cannot grow the file to \(size) bytes")
        }
        // File systems without fallocate (tmpfs variants, some FUSE): a sparse extension.
        if code == EOPNOTSUPP || code == ENOSYS || code == EINVAL {
            _ = try SystemCall.run(path: path, "ftruncate to \(size)") { ftruncate(descriptor, off_t(size)) }
            return
        }
        throw FirnError.io(path: path, operation: "fallocate to \(size) bytes", errno: code)
    }

    /// The file's size, from `lseek(SEEK_END)`, not `fstat`: on Linux 6.13+
    /// (multigrain timestamps) reading a file's timestamps makes its next
    /// write store a fine-grained mtime, which dirties the inode, and on
    /// ext4 that turns every `fdatasync` after it into an extra synchronous
    /// inode write. Every commit sizes the file, so `fstat` here cost each
    /// durable commit one more device round trip (measured: 2 inode writes
    /// per 2 commits with `fstat`, ~0 with `lseek`). The descriptor's offset
    /// is never used (all I/O is positional), so moving it is harmless.
    package func size() throws(FirnError) -> UInt64 {
        let end = try SystemCall.run(path: path, "lseek to the end") { lseek(descriptor, 0, SEEK_END) }
        return UInt64(end)
    }
}

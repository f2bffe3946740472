#if canImport(Glibc)
import Glibc
#endif

/// Creating a new database file atomically: the first version is written
/// to a temporary file in the same directory, synced, and linked into
/// place, so a concurrent opener sees either no file or a complete one.
enum FileCreation {
    static func create(path: String, pageSize: Int) throws(FirnError) {
        let temporary = "\(path).creating-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let file = try POSIXFile(path: temporary, writable: true, create: true)
        defer {
            file.close()
            unlink(temporary)
        }
        let record = CommitRecord(
            pageSize: UInt32(pageSize), version: 1, timestampNanoseconds: wallClockNanoseconds(),
            logicalPageCount: 2, catalogRoot: .none, spaceRoot: .none, bytesWritten: 0, freePages: 0, retiredPages: 0)
        try file.extend(to: UInt64(2 * pageSize))
        let bytes = record.encoded()
        // Version v lives in slot v % 2.
        try withBytes(bytes) { (b) throws(FirnError) in try file.write(b, at: UInt64(pageSize)) }
        try file.sync()
        if link(temporary, path) != 0 {
            let code = errno
            if code == EEXIST { return }  // someone else created it first; theirs stands
            if code == ENOSPC || code == EDQUOT { throw FirnError.noSpace(path: path, detail: "cannot create the file") }
            if code == ENOENT { throw FirnError.notFound(path: path, detail: "the directory does not exist") }
            throw FirnError.io(path: path, operation: "link \(temporary)", errno: code)
        }
        try syncDirectory(of: path)
    }
}

/// fsync of the directory holding `path`, making a rename or link durable.
public func syncDirectory(of path: String) throws(FirnError) {
    let directory: String
    if let slash = path.lastIndex(of: "/") {
        directory = slash == path.startIndex ? "/" : String(path[..<slash])
    } else {
        directory = "."
    }
    let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { throw FirnError.io(path: directory, operation: "open directory", errno: errno) }
    defer { Glibc.close(fd) }
    _ = try retryingEINTR(path: directory, "fsync directory") { fsync(fd) }
}


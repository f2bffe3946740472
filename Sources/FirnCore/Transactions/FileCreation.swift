#if canImport(Glibc)
import Glibc
#endif

/// Creating a new database file atomically: the first version is written
/// to a temporary file in the same directory (`<name>.creating-<pid>-<random>`,
/// locked by its creator; see `OwnedTemporaryFile`), synced, and linked into
/// place, so a concurrent opener sees either no file or a complete one.
/// Leftovers of creators that were killed are removed first. Errors name
/// the database's path, never the temporary file.
enum FileCreation {
    static func create(path: String, pageSize: Int) throws(FirnError) {
        let directory = parentDirectory(of: path)
        let prefix = fileName(of: path) + ".creating-"
        OwnedTemporaryFile.removeLeftovers(in: directory, prefixes: [prefix])
        let (temporary, file) = try createTemporary(for: path, in: directory)
        defer {
            file.close()
            unlink(temporary)
        }
        do {
            let record = CommitRecord(
                pageSize: UInt32(pageSize), version: 1, timestampNanoseconds: wallClockNanoseconds(),
                logicalPageCount: 2, catalogRoot: .none, spaceRoot: .none, bytesWritten: 0, freePages: 0, retiredPages: 0)
            try file.extend(to: UInt64(2 * pageSize))
            let bytes = record.encoded()
            // Version v lives in slot v % 2.
            try withBytes(bytes) { (b) throws(FirnError) in try file.write(b, at: UInt64(pageSize)) }
            try file.sync()
        } catch {
            throw error.naming(path, insteadOf: temporary)
        }
        if link(temporary, path) != 0 {
            let code = errno
            if code == EEXIST { return }  // someone else created it first; theirs stands
            throw creationError(path, directory: directory, operation: "link into place", errno: code)
        }
        try syncDirectory(of: path)
    }

    /// Creates and locks the temporary file (another name if a sweeper holds
    /// the first, which it is about to remove).
    static func createTemporary(for path: String, in directory: String) throws(FirnError) -> (String, POSIXFile) {
        var attempts = 0
        while true {
            attempts += 1
            // `<directory>/<prefix><pid>-<random>`, spelled as the user spelled the path.
            let temporary = OwnedTemporaryFile.name(prefix: path + ".creating-")
            let file: POSIXFile
            do {
                file = try POSIXFile(path: temporary, writable: true, create: true)
            } catch {
                switch error {
                case .notFound: throw creationError(path, directory: directory, operation: "create", errno: ENOENT)
                case let .io(_, _, code) where code == EEXIST && attempts < 8: continue
                case let .io(_, _, code): throw creationError(path, directory: directory, operation: "create", errno: code)
                default: throw error.naming(path, insteadOf: temporary)
                }
            }
            if OwnedTemporaryFile.lock(file.descriptor) { return (temporary, file) }
            file.close()
            if attempts >= 8 {
                throw FirnError.io(path: path, operation: "lock a temporary file in \(directory)", errno: EWOULDBLOCK)
            }
        }
    }

    /// An errno from creating the file, naming the database path: a missing
    /// or unwritable directory is `.cannotCreate`, a full disk `.noSpace`.
    static func creationError(_ path: String, directory: String, operation: String, errno code: Int32) -> FirnError {
        switch code {
        case ENOENT: return .cannotCreate(path: path, detail: "the directory \(directory) does not exist")
        case ENOTDIR: return .cannotCreate(path: path, detail: "\(directory) is not a directory")
        case EACCES, EPERM, EROFS: return .cannotCreate(path: path, detail: "\(directory): \(errnoDescription(code))")
        case ENOSPC, EDQUOT: return .noSpace(path: path, detail: "cannot create the file")
        default: return .io(path: path, operation: operation, errno: code)
        }
    }
}

extension FirnError {
    /// The same error naming `path` where it named `temporary`.
    func naming(_ path: String, insteadOf temporary: String) -> FirnError {
        switch self {
        case let .io(p, operation, code) where p == temporary: return .io(path: path, operation: operation, errno: code)
        case let .notFound(p, detail) where p == temporary: return .notFound(path: path, detail: detail)
        case let .noSpace(p, detail) where p == temporary: return .noSpace(path: path, detail: detail)
        case let .cannotCreate(p, detail) where p == temporary: return .cannotCreate(path: path, detail: detail)
        default: return self
        }
    }
}

/// The directory part of `path`: "." for a bare name, "/" for a file in the root.
package func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// The last component of `path`.
package func fileName(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return path }
    return String(path[path.index(after: slash)...])
}

/// fsync of the directory holding `path`, making a rename or link durable.
package func syncDirectory(of path: String) throws(FirnError) {
    let directory = parentDirectory(of: path)
    let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { throw FirnError.io(path: directory, operation: "open directory", errno: errno) }
    defer { Glibc.close(fd) }
    _ = try SystemCall.run(path: directory, "fsync directory") { fsync(fd) }
}

#if canImport(Glibc)
import Glibc
#endif
@testable import FirnCore

/// A database file replaced in place the way the toolkit does it
/// (`ReplacementTests`, `CommitLogReplacementTests`).
enum FileReplacement {
    /// A copy of `store`'s latest version made by the packed-image writer,
    /// as compaction makes it.
    static func compactedCopy(of store: Store, to destination: String) throws {
        let snapshot = try store.snapshot(kind: .compact, label: "test")
        defer { snapshot.close() }
        let file = try POSIXFile(path: destination, writable: true, create: true)
        defer { file.close() }
        _ = try PackedImageWriter.write(snapshot, to: file)
        try file.sync()
    }

    /// Replaces the file at `path` with `replacement` the way the toolkit
    /// does: holding the database exclusively across the rename, then
    /// recording the new file in the lock file.
    static func replaceInPlace(_ path: String, with replacement: String, version: UInt64) throws {
        let lock = try LockFile.open(databasePath: path)
        defer { lock.close() }
        try lock.tryExclusiveSession()
        guard rename(replacement, path) == 0 else { throw FirnError.io(path: path, operation: "rename", errno: errno) }
        try lock.didReplaceDataFile(version: version)
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// Packed copies of a version, for the SDK's `writeCopy(toFile:)` and
/// `shouldCompactOnLaunch`: the same packed image writer as `firn compact`,
/// and the same file protocol as creating a database (a locked temporary
/// file in the destination's directory, synced, linked or renamed into
/// place, the directory synced).
extension Store {
    /// Writes `snapshot`'s version as a new, packed database at `path`.
    /// Never replaces a file: one already at `path` is `.cannotCreate`.
    @discardableResult
    package func writeCopy(of snapshot: Snapshot, to path: String) throws(FirnError) -> PackedImageWriter.Summary {
        let (temporary, file, summary) = try packedTemporary(of: snapshot, for: path)
        defer {
            file.close()
            unlink(temporary)
        }
        if link(temporary, path) != 0 {
            let code = errno
            if code == EEXIST { throw FirnError.cannotCreate(path: path, detail: "a file already exists there (a copy never replaces one)") }
            throw FileCreation.creationError(path, directory: parentDirectory(of: path), operation: "link into place", errno: code)
        }
        try syncDirectory(of: path)
        return summary
    }

    /// Replaces the file with a packed image of its current version when no
    /// other session (this process's other stores included) has it open;
    /// nil when one has. After a compaction this store's descriptor refers
    /// to the replaced file: the caller closes it and opens the path again
    /// (until then its commits fail `.busy`, see `WriteTransaction.chooseBase`).
    package func compactInPlaceIfAlone() throws(FirnError) -> PackedImageWriter.Summary? {
        guard let lock = lockFile else {
            throw FirnError.misuse("\(path): compacting in place needs the lock file (a store opened for writing)")
        }
        do {
            try lock.tryExclusiveSession()
        } catch {
            if case .busy = error { return nil }
            throw error
        }
        defer { lock.releaseExclusiveSession() }
        let lease = try lock.lockWriter(timeout: .zero)
        defer { lock.unlockWriter(lease) }
        let snapshot = try self.snapshot(kind: .compact, label: "compact on launch")
        let (temporary, file, summary): (String, POSIXFile, PackedImageWriter.Summary)
        do {
            (temporary, file, summary) = try packedTemporary(of: snapshot, for: path)
        } catch {
            snapshot.close()
            throw error
        }
        defer {
            file.close()
            unlink(temporary)
        }
        snapshot.close()
        // Still exclusive: nobody can open the old file between the rename
        // and the new identity being recorded.
        if rename(temporary, path) != 0 {
            throw FirnError.io(path: path, operation: "rename the compacted copy into place", errno: errno)
        }
        try syncDirectory(of: path)
        try lock.didReplaceDataFile(version: summary.version)
        return summary
    }

    /// The packed image of `snapshot` in a new, locked temporary file next
    /// to `path`, synced and verified; errors name `path`.
    private func packedTemporary(
        of snapshot: Snapshot, for path: String
    ) throws(FirnError) -> (String, POSIXFile, PackedImageWriter.Summary) {
        let directory = parentDirectory(of: path)
        OwnedTemporaryFile.removeLeftovers(in: directory, prefixes: [fileName(of: path) + ".creating-"])
        let (temporary, file) = try FileCreation.createTemporary(for: path, in: directory)
        do {
            let summary = try PackedImageWriter.write(snapshot, to: file)
            try file.sync()
            try Self.verifyImage(temporary, shownAs: path)
            return (temporary, file, summary)
        } catch {
            file.close()
            unlink(temporary)
            throw error.naming(path, insteadOf: temporary)
        }
    }

    /// Reads the image back and verifies it before it can replace anything.
    private static func verifyImage(_ temporary: String, shownAs path: String) throws(FirnError) {
        var options = StoreOptions()
        options.readOnly = true
        options.create = false
        let image = try Store.open(temporary, options: options)
        defer { image.close() }
        let snapshot = try image.snapshot(kind: .tool, label: "verify copy")
        defer { snapshot.close() }
        let report = Verifier.verify(snapshot, slots: try image.readSlots())
        if let first = report.findings.first {
            throw FirnError.corrupt(path: path, page: first.page, version: snapshot.version,
                                    detail: "the packed copy did not verify (\(report.findings.count) findings): \(first.message)")
        }
    }
}

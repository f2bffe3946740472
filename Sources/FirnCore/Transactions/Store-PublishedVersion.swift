/// A published version the data file does not hold (FORMAT.md 11, "A hint,
/// not the truth"). A lock file nobody holds is not trusted at all (the
/// opener checks the file); this is the other case, where processes hold it:
/// a writer publishes a version only after writing it, so a version the
/// file cannot account for while its lock file is held means the data file
/// was replaced or restored under those processes, or the lock file was
/// damaged. Their lock file is never reinitialized under them (they may hold
/// acknowledged commits it publishes), so the error names it and them, and
/// is `.busy`: it ends when they close the database. Never a data page's
/// fault: nothing in the data file is wrong.
extension Store {
    /// True when the data file accounts for `published` as a version that
    /// is still to be published: an unsealed record whose group `published`
    /// belongs to (its writer died before publishing; a writer takes it
    /// over, FORMAT.md 2.1). A reader that cannot find `published` then
    /// waits for that writer instead of blaming the lock file.
    func groupAwaitsPublication(above published: UInt64, slots: CommitSlots) -> Bool {
        for slot in slots.slots {
            guard case let .success(record) = slot else { continue }
            if record.unsealed, record.version > published, record.durableBase < published { return true }
        }
        return false
    }

    /// The newest version the data file holds: its newest valid record's,
    /// or the newest whole frame of that record's log. 0 when no record is
    /// valid.
    func newestVersionInFile(_ slots: CommitSlots) throws(FirnError) -> UInt64 {
        guard let newest = slots.newest else { return 0 }
        guard newest.hasLogRegion, let scan = try log.frames(of: newest) else { return newest.version }
        return max(newest.version, scan.newestVersion)
    }

    /// The error for a held lock file publishing `published`, which the
    /// data file (newest version `newestInFile`) does not hold.
    func publishedVersionNotInFile(_ published: UInt64, newestInFile: UInt64, lockFile: LockFile) -> FirnError {
        let others = lockFile.otherSessionHolders()
        let holders = others.isEmpty ? "this process alone" : LockFile.describeHolders(others)
        let relation = published > newestInFile ? "beyond" : "not among the versions of"
        return .busy(
            path: lockFile.path,
            detail: "the lock file publishes version \(published), \(relation) the data file \(path) "
                + "(its newest version is \(newestInFile)), and is held by \(holders): "
                + "the data file was replaced or restored under them, or the lock file is damaged; "
                + "once they close the database the data file decides")
    }
}

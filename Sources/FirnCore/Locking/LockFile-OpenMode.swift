extension LockFile {
    /// How `LockFile.open(databasePath:readerSlots:mode:)` treats a missing
    /// or unusable lock file.
    package enum OpenMode: Sendable, Equatable {
        /// Create the lock file when missing; (re)initialize it when nobody
        /// else has it open. Never returns nil.
        case readWrite
        /// Never create or reinitialize: returns nil when the lock file is
        /// missing, cannot be opened read-write (EACCES, EROFS), or is not a
        /// valid lock file while nobody holds it. The caller then reads
        /// without a pin (nobody is writing the database then either). A
        /// valid one nobody holds is joined with its published version
        /// cleared: the opener checks the data file (FORMAT.md 2.1, 11).
        case readOnlyExisting
    }
}

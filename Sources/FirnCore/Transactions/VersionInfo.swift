/// What it takes to read a version: its number, time, catalog root and
/// page count. From a commit slot, or from the commit history for a pinned
/// version whose slot has since been reused.
package struct VersionInfo: Sendable, Equatable, Codable {
    package var version: UInt64
    package var timestampNanoseconds: UInt64
    package var logicalPageCount: UInt64
    package var catalogRoot: PageRef
    /// The commit record, for versions read from a commit slot.
    package var commitRecord: CommitRecord?
    /// Known only for versions read from a commit slot.
    package var spaceRoot: PageRef? { commitRecord?.spaceRoot }

    package init(_ record: CommitRecord) {
        self.init(version: record.version, timestampNanoseconds: record.timestampNanoseconds,
                  logicalPageCount: record.logicalPageCount, catalogRoot: record.catalogRoot)
        commitRecord = record
    }

    init(version: UInt64, timestampNanoseconds: UInt64, logicalPageCount: UInt64, catalogRoot: PageRef) {
        self.version = version
        self.timestampNanoseconds = timestampNanoseconds
        self.logicalPageCount = logicalPageCount
        self.catalogRoot = catalogRoot
        commitRecord = nil
    }

    package init(_ history: HistoryRecord) {
        self.init(version: history.version, timestampNanoseconds: history.timestampNanoseconds,
                  logicalPageCount: history.logicalPageCount, catalogRoot: history.catalogRoot)
    }
}

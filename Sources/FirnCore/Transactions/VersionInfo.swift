/// What it takes to read a version: its number, time, catalog root and
/// page count. From a commit slot, or from the commit history for a pinned
/// version whose slot has since been reused.
public struct VersionInfo: Sendable, Equatable, Codable {
    public var version: UInt64
    public var timestampNanoseconds: UInt64
    public var logicalPageCount: UInt64
    public var catalogRoot: PageRef
    /// The commit record, for versions read from a commit slot.
    public var commitRecord: CommitRecord?
    /// Known only for versions read from a commit slot.
    public var spaceRoot: PageRef? { commitRecord?.spaceRoot }

    public init(_ record: CommitRecord) {
        version = record.version
        timestampNanoseconds = record.timestampNanoseconds
        logicalPageCount = record.logicalPageCount
        catalogRoot = record.catalogRoot
        commitRecord = record
    }

    init(version: UInt64, timestampNanoseconds: UInt64, logicalPageCount: UInt64, catalogRoot: PageRef) {
        self.version = version
        self.timestampNanoseconds = timestampNanoseconds
        self.logicalPageCount = logicalPageCount
        self.catalogRoot = catalogRoot
        commitRecord = nil
    }

    public init(_ history: HistoryRecord) {
        version = history.version
        timestampNanoseconds = history.timestampNanoseconds
        logicalPageCount = history.logicalPageCount
        catalogRoot = history.catalogRoot
        commitRecord = nil
    }
}

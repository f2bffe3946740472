/// A checkpoint's commit log as the tools report it (FORMAT.md 8.2): the
/// `log` object of both `firn verify` and `firn info`. Its summary of a
/// `LogInspection` is built here, in `init(_:)`, and nowhere else, so the
/// two commands cannot drift apart in what a key means. The context only
/// one command has (`notes`; `firstOpenerVersion`, `publishedVersion`) is
/// optional: nil, and so absent from JSON, in the other command's report.
package struct LogReport: Codable, Sendable, Equatable {
    /// The checkpoint's version, which made the region.
    package var epoch: UInt64
    package var firstPage: UInt64
    package var pages: UInt64
    package var bytes: UInt64
    package var commitFrames: Int
    /// Commit frames written without their sync (members of a group).
    package var deferredFrames: Int
    package var sealFrames: Int
    /// The last commit frame accepted (the epoch with none).
    package var newestVersion: UInt64
    /// The last commit written with its sync or the last seal (the epoch
    /// with neither).
    package var durableVersion: UInt64
    /// Why the scan stopped, at which byte of the region (for `full`,
    /// where the last frame ends), in which file page when inside the
    /// region, with the other frame's epoch (`otherEpoch`) or the check
    /// that failed (`torn`, `stale`, `damaged`).
    package var end: LogEndKind
    package var endOffset: UInt64
    package var endPage: UInt64?
    package var endEpoch: UInt64?
    package var endDetail: String?
    /// Bytes from the region's start to where the next frame would go,
    /// and the rest of the region.
    package var usedBytes: UInt64
    package var freeBytes: UInt64
    /// The newest version whose frames, and every frame before them, apply.
    package var appliedVersion: UInt64
    /// A commit frame that checks out but cannot be applied (`firn verify`
    /// reports it as a finding too): its first page, version and what it
    /// does that the versions before it do not allow.
    package var unappliedPage: UInt64?
    package var unappliedVersion: UInt64?
    package var unappliedDetail: String?

    /// `verify` only (always set there, empty when there is nothing to
    /// say): what is normal but worth knowing, e.g. a torn, stale or
    /// damaged end after the version's frame (what a crash during a write
    /// leaves), frames past the version.
    package var notes: [String]? = nil
    /// `info` only (always set there): the version a first opener takes
    /// (one that finds nobody else with the database open, e.g. after a
    /// power loss, or any reader without a lock file): the slots' current
    /// record and, when it made a region, that log's durable version.
    package var firstOpenerVersion: UInt64? = nil
    /// `info` only: the version the lock file publishes, which later
    /// openers read; nil without a usable lock file or while it publishes
    /// none.
    package var publishedVersion: UInt64? = nil
}

// In an extension, so the struct keeps its memberwise initializer.
extension LogReport {
    /// The summary of `inspection`, with no command's context.
    package init(_ inspection: LogInspection) {
        let unapplied = inspection.unapplied
        self.init(
            epoch: inspection.epoch, firstPage: inspection.startPage, pages: inspection.pageCount,
            bytes: inspection.regionBytes, commitFrames: inspection.commitFrames,
            deferredFrames: inspection.frames.filter { $0.kind == .commit && $0.deferred }.count,
            sealFrames: inspection.sealFrames, newestVersion: inspection.newestVersion,
            durableVersion: inspection.durableVersion, end: inspection.endKind, endOffset: inspection.endOffset,
            endPage: inspection.endPage, endEpoch: inspection.endEpoch, endDetail: inspection.endDetail,
            usedBytes: inspection.usedBytes, freeBytes: inspection.freeBytes, appliedVersion: inspection.appliedVersion,
            unappliedPage: unapplied?.page, unappliedVersion: unapplied?.version, unappliedDetail: unapplied?.detail)
    }
}

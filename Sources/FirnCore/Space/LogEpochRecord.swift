/// What reading a frame of a retired commit log region needs once its
/// checkpoint has left the commit slots: the value of the space tree's
/// epoch entry `E`(end) (FORMAT.md 7). The checkpoint `end` that retires
/// the region of checkpoint `epoch` writes it; it goes when the region's
/// pages are reclaimed (no pinned version lies in `epoch … end − 1`), so a
/// frame version a process pins stays readable by every process — `firn
/// dump --version`, `verify --version` — for as long as it is pinned.
///
/// | offset | size | field |
/// |-------:|-----:|-------|
/// | 0 | 8 | epoch: the checkpoint's version |
/// | 8 | 8 | its commit time, ns since 1970 |
/// | 16 | 8 | its logical page count |
/// | 24 | 20 | its catalog root (`PageRef`) |
/// | 44 | 8 | the region's first page |
/// | 52 | 4 | the region's page count |
/// | 56 | 4 | the seed: the checkpoint record's checksum, which its first frame chains to |
package struct LogEpochRecord: Sendable, Equatable {
    package static let size = 60

    package var epoch: UInt64
    package var timestampNanoseconds: UInt64
    package var logicalPageCount: UInt64
    package var catalogRoot: PageRef
    package var regionStart: UInt64
    package var regionPages: UInt32
    package var seed: UInt32

    /// The entry for `record`, a checkpoint that made a region.
    package init?(_ record: CommitRecord) {
        guard let region = record.logRegion else { return nil }
        epoch = record.version
        timestampNanoseconds = record.timestampNanoseconds
        logicalPageCount = record.logicalPageCount
        catalogRoot = record.catalogRoot
        regionStart = region.startPage
        regionPages = record.logRegionPages
        seed = region.seed
    }

    var region: LogRegion {
        LogRegion(startPage: regionStart, pageCount: UInt64(regionPages), epoch: epoch, seed: seed)
    }

    /// The pages of the region; `defect(end:)` is nil, so they do not overflow.
    package var regionPageRange: Range<UInt64> { regionStart..<regionStart + UInt64(regionPages) }

    /// What reading the epoch's checkpoint needs (the commit record it
    /// stands for has left its slot).
    package var versionInfo: VersionInfo {
        VersionInfo(version: epoch, timestampNanoseconds: timestampNanoseconds,
                    logicalPageCount: logicalPageCount, catalogRoot: catalogRoot)
    }

    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.size)
        for field in [epoch, timestampNanoseconds, logicalPageCount, catalogRoot.page, catalogRoot.birth] {
            bytes.appendLE(field)
        }
        bytes.appendLE(catalogRoot.checksum)
        bytes.appendLE(regionStart)
        bytes.appendLE(regionPages)
        bytes.appendLE(seed)
        return bytes
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) -> LogEpochRecord? {
        guard bytes.count == size, let base = bytes.baseAddress else { return nil }
        return LogEpochRecord(
            epoch: base.le(UInt64.self, at: 0), timestampNanoseconds: base.le(UInt64.self, at: 8),
            logicalPageCount: base.le(UInt64.self, at: 16), catalogRoot: PageRef(loading: base, at: 24),
            regionStart: base.le(UInt64.self, at: 44), regionPages: base.le(UInt32.self, at: 52),
            seed: base.le(UInt32.self, at: 56))
    }

    private init(epoch: UInt64, timestampNanoseconds: UInt64, logicalPageCount: UInt64, catalogRoot: PageRef,
                 regionStart: UInt64, regionPages: UInt32, seed: UInt32) {
        self.epoch = epoch
        self.timestampNanoseconds = timestampNanoseconds
        self.logicalPageCount = logicalPageCount
        self.catalogRoot = catalogRoot
        self.regionStart = regionStart
        self.regionPages = regionPages
        self.seed = seed
    }

    /// What is wrong with a stored entry `E`(`end`).
    enum Defect: Error, Equatable {
        /// Not a `size`-byte inline record.
        case shape
        /// A field no writer produces, and what it should be.
        case field(String, expected: String)

        /// "is not a 60-byte record", "epoch is invalid (expected …)".
        var description: String {
            switch self {
            case .shape: return "is not a \(LogEpochRecord.size)-byte record"
            case let .field(field, expected): return "\(field) is invalid (expected \(expected))"
            }
        }
    }

    /// The entry `E`(`end`) as stored, decoded and checked before use (its
    /// numbers place reads): the readers of the space tree all read it so.
    static func validated(_ value: StoredValue?, end: UInt64) -> Result<LogEpochRecord, Defect> {
        guard case let .inline(bytes)? = value, let entry = decode(bytes) else { return .failure(.shape) }
        if let (field, expected) = entry.defect(end: end) { return .failure(.field(field, expected: expected)) }
        return .success(entry)
    }

    /// The first field a writer never produces for the entry `E`(`end`),
    /// as (field, expected); nil when every field is valid (FORMAT.md 7).
    /// Checked before the entry is used: its numbers place reads.
    package func defect(end: UInt64) -> (field: String, expected: String)? {
        guard epoch >= 1, epoch < end else { return ("epoch", "1…\(end &- 1) (before the checkpoint \(end) that retired it)") }
        guard logicalPageCount >= 2 else { return ("logical page count", "≥ 2") }
        if !catalogRoot.isNone {
            guard catalogRoot.page >= 2, catalogRoot.page < logicalPageCount else {
                return ("catalog root", "none or a page in 2..<\(logicalPageCount)")
            }
            guard catalogRoot.birth >= 1, catalogRoot.birth <= epoch else {
                return ("catalog root birth", "1…\(epoch)")
            }
        }
        guard regionPages >= 1 else { return ("region page count", "≥ 1") }
        let end = regionStart.addingReportingOverflow(UInt64(regionPages))
        guard regionStart >= 2, !end.overflow, end.partialValue <= logicalPageCount else {
            return ("region", "pages inside 2..<\(logicalPageCount)")
        }
        return nil
    }
}

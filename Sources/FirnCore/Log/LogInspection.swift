/// What the tools report of a checkpoint's commit log (`Store.inspectLog`,
/// FORMAT.md 8.2): its region, the frames a scan from the region's start
/// accepts, where and why the scan stopped, and whether each commit frame
/// applies over the versions before it, as every reader applies it. Read
/// afresh from the file, apart from the store's own reading of the log, so
/// `verify` checks the frames with nothing a reader cached.
package struct LogInspection: Sendable, Equatable {
    package typealias EndKind = LogEndKind

    package enum FrameKind: String, Sendable, Equatable {
        case commit, seal
    }

    /// One frame the scan accepted.
    package struct Frame: Sendable, Equatable {
        package var kind: FrameKind
        /// A commit's new version; a seal's sealed version.
        package var version: UInt64
        /// A commit written without its sync (a member of an open group).
        package var deferred: Bool
        /// Its first byte, counted from the region's start.
        package var offset: UInt64
        /// The file page holding its first byte.
        package var page: UInt64
        package var payloadBytes: UInt64
        /// From its first byte to where the next frame starts.
        package var spanBytes: UInt64
        package var timestampNanoseconds: UInt64
        /// The trees a commit frame changed, created or dropped, in byte
        /// order: each carries its entry count after the version. Empty for
        /// a seal and for frames not applied.
        package var trees: [String]
    }

    /// A commit frame that checks out (the scan accepted it) but cannot be
    /// applied: no reader can read its version, or any after it.
    package struct Unapplied: Sendable, Equatable {
        /// The file page holding the frame's first byte.
        package var page: UInt64
        package var version: UInt64
        /// What the frame does that the versions before it do not allow.
        package var detail: String
    }

    package var startPage: UInt64
    package var pageCount: UInt64
    /// The checkpoint's version.
    package var epoch: UInt64
    /// The checkpoint record's checksum: the first frame chains to it.
    package var seed: UInt32
    package var pageSize: Int
    package var regionBytes: UInt64 { pageCount * UInt64(pageSize) }
    package var frames: [Frame]
    /// When each commit frame's version was committed (ns since 1970).
    package var commitTimes: [UInt64: UInt64] {
        Dictionary(frames.lazy.filter { $0.kind == .commit }.map { ($0.version, $0.timestampNanoseconds) },
                   uniquingKeysWith: { _, newer in newer })
    }
    package var endKind: EndKind
    /// Where the scan stopped, in bytes from the region's start (for `full`,
    /// where the last frame's span ends).
    package var endOffset: UInt64
    /// The file page holding `endOffset`; nil for `full` when the frames end
    /// exactly at the region's end.
    package var endPage: UInt64? {
        endOffset < regionBytes ? startPage + endOffset / UInt64(pageSize) : nil
    }
    /// For `otherEpoch`: the epoch the frame there names.
    package var endEpoch: UInt64?
    /// For `torn`, `stale` and `damaged`: which check failed.
    package var endDetail: String?
    /// The last commit frame accepted (the epoch with none).
    package var newestVersion: UInt64
    /// The last commit written with its sync, or the last seal (the epoch
    /// with neither): what a first opener takes.
    package var durableVersion: UInt64
    /// Bytes from the region's start to where the next frame would start.
    package var usedBytes: UInt64
    package var freeBytes: UInt64 { regionBytes - min(usedBytes, regionBytes) }
    /// The newest version whose frames, and every frame before them, apply:
    /// `newestVersion` unless `unapplied` says which frame does not.
    package var appliedVersion: UInt64
    /// The first commit frame that cannot be applied, if any.
    package var unapplied: Unapplied?

    package var commitFrames: Int { frames.filter { $0.kind == .commit }.count }
    package var sealFrames: Int { frames.filter { $0.kind == .seal }.count }

    /// The last frame at or below `version` that changed `tree`: the one
    /// whose count the tree has at `version`.
    package func lastFrame(changing tree: String, atOrBelow version: UInt64) -> Frame? {
        frames.last { $0.kind == .commit && $0.version <= version && $0.trees.contains(tree) }
    }
}

/// Why a scan of a commit log region stopped (FORMAT.md 8.2): the kinds
/// the tools report, as JSON spells them.
package enum LogEndKind: String, Codable, Sendable, Equatable, CaseIterable {
    /// Fewer than 64 bytes left after the last frame: the region is full.
    case full
    /// Zeros where the next frame would start: the next frame goes there.
    case blank
    /// Other data (a page the region reused): the next frame goes there.
    case foreign
    /// A whole frame of another checkpoint's log: the next frame goes there.
    case otherEpoch
    /// A frame whose header or payload checksum fails: a write cut short.
    case torn
    /// A whole frame of this epoch chained to another frame.
    case stale
    /// A chained, whole frame with a field no writer produces.
    case damaged

    /// Whether a frame may be appended where the scan stopped: after a
    /// torn, stale or damaged end a frame of this epoch may lie beyond it,
    /// and after a full region nothing fits, so the next commit there is a
    /// checkpoint.
    package var allowsAppend: Bool {
        switch self {
        case .blank, .foreign, .otherEpoch: return true
        case .full, .torn, .stale, .damaged: return false
        }
    }
}

extension LogEndKind {
    init(_ end: LogScan.End) {
        switch end {
        case .full: self = .full
        case .blank: self = .blank
        case .foreign: self = .foreign
        case .otherEpoch: self = .otherEpoch
        case .torn: self = .torn
        case .stale: self = .stale
        case .damaged: self = .damaged
        }
    }
}

extension Store {
    /// Reads `record`'s log region afresh (not through the store's chain):
    /// every frame the scan accepts, where it stopped, and each commit frame
    /// applied in turn until one fails. Nil when the record made no region.
    /// Throws when the region's pages cannot be read (a file shorter than
    /// the record's pages), never for what the frames hold.
    package func inspectLog(of record: CommitRecord) throws(FirnError) -> LogInspection? {
        guard let region = record.logRegion else { return nil }
        let pageSize = UInt64(geometry.pageSize)
        // `CommitRecord.decode` checked this; the record is a value anyone
        // can build, so once more before the region is sliced from the map.
        let end = region.startPage.addingReportingOverflow(region.pageCount)
        guard region.startPage >= 2, !end.overflow, end.partialValue <= record.logicalPageCount,
              region.pageCount <= UInt64(Int.max) / pageSize else {
            throw FirnError.corrupt(
                path: path, page: nil, version: record.version,
                detail: "log region of \(region.pageCount) pages from page \(region.startPage) lies outside the record's \(record.logicalPageCount) pages")
        }
        let map = try mapCovering(pages: record.logicalPageCount, version: record.version)
        let bytes = log.regionBytes(region, in: map)
        let scan = LogScan.scan(region, bytes: bytes, geometry: geometry)
        let reading = log.reading(for: VersionInfo(record), map: map)
        var inspection = LogInspection(
            startPage: region.startPage, pageCount: region.pageCount, epoch: region.epoch, seed: region.seed,
            pageSize: geometry.pageSize, frames: [], endKind: LogInspection.EndKind(scan.end), endOffset: scan.nextOffset,
            endEpoch: nil, endDetail: nil, newestVersion: scan.newestVersion, durableVersion: scan.durableVersion,
            usedBytes: scan.nextOffset, appliedVersion: region.epoch,
            unapplied: nil)
        switch scan.end {
        case .full: break
        case let .blank(offset), let .foreign(offset): inspection.endOffset = offset
        case let .otherEpoch(offset, epoch):
            inspection.endOffset = offset
            inspection.endEpoch = epoch
        case let .torn(offset, detail), let .stale(offset, detail), let .damaged(offset, detail):
            inspection.endOffset = offset
            inspection.endDetail = detail
        }
        var previous = LogOverlayVersion.checkpoint(region.epoch)
        for frame in scan.frames {
            // The scan accepted the frame inside the region: its page is too.
            let page = region.startPage + frame.offset / pageSize
            var entry = LogInspection.Frame(
                kind: frame.header.kind == .commit ? .commit : .seal, version: frame.header.version,
                deferred: frame.header.deferred, offset: frame.offset, page: page,
                payloadBytes: frame.header.payloadLength,
                spanBytes: UInt64(frame.header.span) * UInt64(LogFrameHeader.alignment),
                timestampNanoseconds: frame.header.timestampNanoseconds, trees: [])
            if frame.header.kind == .commit && inspection.unapplied == nil {
                do {
                    let link = try LogChain.apply(
                        frame, over: previous, region: region, bytes: bytes, owner: map, geometry: geometry,
                        countLimit: reading.countLimit, checkpointHasTree: reading.checkpointHasTree)
                    entry.trees = link.changes.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
                    inspection.appliedVersion = link.version
                    previous = link
                } catch {
                    let detail: String
                    if case let .corrupt(_, _, _, text) = error { detail = text } else { detail = error.description }
                    inspection.unapplied = LogInspection.Unapplied(page: page, version: frame.header.version, detail: detail)
                }
            }
            inspection.frames.append(entry)
        }
        return inspection
    }
}

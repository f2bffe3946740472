/// Appends frames to a log region (docs/COMMIT-PATH.md, "The commit log").
/// Each frame is one positional write of whole pages; a commit that is not
/// deferred, and every seal, is then synced, and only then acknowledged.
/// One writer at a time (the writer lock), not thread-safe itself.
final class LogAppender {
    let io: any FileIO
    let region: LogRegion
    let geometry: PageGeometry
    private(set) var nextPage: UInt64
    private(set) var chain: UInt32
    private(set) var newestVersion: UInt64
    private(set) var durableVersion: UInt64

    private init(io: any FileIO, region: LogRegion, geometry: PageGeometry, scan: LogScan) {
        self.io = io
        self.region = region
        self.geometry = geometry
        nextPage = scan.nextPage
        chain = scan.chain
        newestVersion = scan.newestVersion
        durableVersion = scan.durableVersion
    }

    /// An appender for an empty region, as its checkpoint made it.
    static func fresh(io: any FileIO, region: LogRegion, geometry: PageGeometry) -> LogAppender {
        LogAppender(io: io, region: region, geometry: geometry,
                    scan: LogScan(frames: [], end: .blank(page: 0), newestVersion: region.epoch,
                                  durableVersion: region.epoch, nextPage: 0, chain: region.seed))
    }

    /// An appender continuing `scan`, or nil when the next commit must start
    /// a new region instead: the scan stopped where a frame of this epoch
    /// may lie beyond (a torn, stale or damaged end), or the region is full,
    /// or the opener discards an open group (`acceptOpenGroup` false after a
    /// power loss), whose frames would otherwise stay after the new ones.
    static func resume(io: any FileIO, region: LogRegion, geometry: PageGeometry, scan: LogScan,
                       acceptOpenGroup: Bool) -> LogAppender? {
        guard scan.end.allowsAppend else { return nil }
        guard acceptOpenGroup || scan.durableVersion == scan.newestVersion else { return nil }
        return LogAppender(io: io, region: region, geometry: geometry, scan: scan)
    }

    /// Whether a commit with `payloadLength` payload bytes fits the region.
    func fits(payloadLength: Int) -> Bool {
        guard let pages = LogFrameHeader.pageCount(payloadLength: UInt64(payloadLength), pageSize: geometry.pageSize)
        else { return false }
        return UInt64(pages) <= region.pageCount - nextPage
    }

    /// Appends the commit of version `newestVersion + 1` with `payload`,
    /// synced unless `deferred`; returns its version. A deferred commit joins
    /// the open group, made durable by the next commit that is not deferred
    /// or by `seal()`. `misuse` when the frame does not fit (check `fits`).
    /// `sync` false skips the sync of a commit that is not deferred: a
    /// store with durability `.none`, whose commits survive a crash of the
    /// process but promise nothing after a power loss.
    @discardableResult
    func appendCommit(payload: [UInt8], deferred: Bool, timestampNanoseconds: UInt64, sync: Bool = true) throws(FirnError) -> UInt64 {
        guard fits(payloadLength: payload.count), newestVersion < UInt64.max else {
            throw FirnError.misuse("\(io.path): log frame of \(payload.count) bytes does not fit the region")
        }
        let version = newestVersion + 1
        try write(kind: .commit, version: version, payload: payload, deferred: deferred,
                  timestampNanoseconds: timestampNanoseconds)
        newestVersion = version
        if !deferred {
            if sync { try io.sync() }
            durableVersion = version
        }
        return version
    }

    /// Makes the open group durable: a seal frame naming its last version,
    /// then the sync. Nothing to do when no group is open. `misuse` when the
    /// region has no page left for the seal (the caller checkpoints then,
    /// which makes the group durable its own way).
    func seal(timestampNanoseconds: UInt64) throws(FirnError) {
        guard durableVersion < newestVersion else { return }
        guard fits(payloadLength: 0) else {
            throw FirnError.misuse("\(io.path): no page left in the log region for a seal frame")
        }
        try write(kind: .seal, version: newestVersion, payload: [], deferred: false,
                  timestampNanoseconds: timestampNanoseconds)
        try io.sync()
        durableVersion = newestVersion
    }

    private func write(kind: LogFrameHeader.Kind, version: UInt64, payload: [UInt8], deferred: Bool,
                       timestampNanoseconds: UInt64) throws(FirnError) {
        let pageSize = geometry.pageSize
        guard let pages = LogFrameHeader.pageCount(payloadLength: UInt64(payload.count), pageSize: pageSize),
              let offset = region.fileOffset(ofPage: nextPage, pageSize: pageSize) else {
            throw FirnError.misuse("\(io.path): log frame position overflows")
        }
        let header = LogFrameHeader(
            epoch: region.epoch, version: version, timestampNanoseconds: timestampNanoseconds,
            payloadLength: UInt64(payload.count), pageCount: pages, kind: kind, deferred: deferred,
            previousChecksum: chain, payloadChecksum: CRC32C.checksum(payload))
        let (headerBytes, checksum) = header.encoded()
        // Whole pages, one buffer: the tail is zeros, so no byte of an older
        // use of the page stays inside the frame.
        var frame = headerBytes
        frame.reserveCapacity(Int(pages) * pageSize)
        frame.append(contentsOf: payload)
        frame.append(contentsOf: repeatElement(0, count: Int(pages) * pageSize - frame.count))
        try withBytes(frame) { (bytes) throws(FirnError) in try io.write(bytes, at: offset) }
        chain = checksum
        nextPage += UInt64(pages)
    }
}

/// One process's reading of an epoch's log: the frames of the region read
/// so far, each applied as a link (`LogOverlayVersion`) that snapshots of
/// its version read through. Another process appends frames; this one
/// reads each frame once, when a version past the last one it read is
/// wanted (the lock file publishes a version only after its frame is
/// written, so the frames up to it are whole). Thread-safe.
final class LogChain: @unchecked Sendable {
    let region: LogRegion
    let geometry: PageGeometry
    /// The largest entry count a frame may give a tree (the file's bytes).
    let countLimit: UInt64
    private let checkpointHasTree: @Sendable (String) throws(FirnError) -> Bool

    private struct State {
        var scan: LogScan
        /// The link of each commit frame read, by version − epoch − 1.
        var links: [LogOverlayVersion] = []
        var root: LogOverlayVersion
        /// Commit frames of the scan already applied.
        var applied = 0
    }
    private let state: Locked<State>

    init(region: LogRegion, geometry: PageGeometry, countLimit: UInt64,
         checkpointHasTree: @escaping @Sendable (String) throws(FirnError) -> Bool) {
        self.region = region
        self.geometry = geometry
        self.countLimit = countLimit
        self.checkpointHasTree = checkpointHasTree
        state = Locked(State(scan: LogScan.start(region), root: .checkpoint(region.epoch)))
    }

    /// The newest version read so far, and the durable one.
    var newestVersion: UInt64 { state.withLock { $0.scan.newestVersion } }
    var durableVersion: UInt64 { state.withLock { $0.scan.durableVersion } }
    /// Why the last read stopped.
    var end: LogScan.End { state.withLock { $0.scan.end } }
    /// The scan as far as it has read: where an appender continues.
    var scan: LogScan { state.withLock { $0.scan } }

    /// Reads every whole frame the region holds now (up to where the scan
    /// stops), applying them; returns the scan.
    func readAll(bytes: UnsafeRawBufferPointer, owner: AnyObject) throws(FirnError) -> LogScan {
        try state.withLock { (s) throws(FirnError) -> LogScan in
            s.scan.resume(region, bytes: bytes, geometry: geometry)
            try apply(&s, bytes: bytes, owner: owner)
            return s.scan
        }
    }

    /// The link of `version`: the checkpoint's for the epoch, a frame's
    /// otherwise, reading frames from `bytes` (the region's pages in the
    /// map, which `owner` keeps mapped) when it has not been read yet. Nil
    /// when the region holds no whole frame of that version (yet).
    /// `.corrupt` when a frame that checks out cannot be applied.
    func link(_ version: UInt64, bytes: UnsafeRawBufferPointer, owner: AnyObject) throws(FirnError) -> LogOverlayVersion? {
        try state.withLock { (s) throws(FirnError) -> LogOverlayVersion? in
            if version == region.epoch { return s.root }
            guard version > region.epoch else { return nil }
            if version > s.scan.newestVersion { s.scan.resume(region, bytes: bytes, geometry: geometry) }
            try apply(&s, bytes: bytes, owner: owner)
            let index = version - region.epoch - 1
            return index < UInt64(s.links.count) ? s.links[Int(index)] : nil
        }
    }

    /// Takes `frame`, which this process just wrote whole into the region
    /// (`LogAppender.lastFrame`), as read: the writer's next transaction and
    /// its own refresh then find the link without reading the frame back
    /// through the map (a page fault, both checksums and a parse of the
    /// payload per commit). A commit frame's link is made from `changes`,
    /// the write transaction's, which its payload encodes
    /// (`LogOverlayVersion.appending`); a seal has none. Nothing when the
    /// chain has not read exactly up to the frame before it, or the frame
    /// does not follow it as a scan requires: a later read then takes it
    /// from the file, as another process's frame. The end is where the
    /// frame ends (blank, or full with no room for another header); the
    /// next read looks at what really lies there. Returns the commit
    /// frame's link, nil when the chain did not take the frame.
    @discardableResult
    func appended(_ frame: LogScan.Frame, changes: LogChangeSet?) -> LogOverlayVersion? {
        state.withLock { (s) -> LogOverlayVersion? in
            let header = frame.header
            // The appender placed the frame inside the region (it checks
            // the same product for overflow).
            let regionBytes = region.pageCount * UInt64(geometry.pageSize)
            guard s.applied == s.scan.frames.count, s.scan.nextOffset == frame.offset,
                  s.scan.chain == header.previousChecksum,
                  LogScan.fieldDefect(header, offset: frame.offset, regionBytes: regionBytes,
                                      pageSize: UInt64(geometry.pageSize), scan: s.scan) == nil else { return nil }
            var link: LogOverlayVersion? = nil
            if header.kind == .commit {
                guard let changes, let made = (s.links.last ?? s.root).appending(
                    version: header.version, trees: changes.frameTrees(), owner: changes.arena) else { return nil }
                s.links.append(made)
                link = made
            }
            s.scan.accept(frame)
            s.applied = s.scan.frames.count
            s.scan.end = regionBytes - s.scan.nextOffset >= UInt64(LogFrameHeader.size)
                ? .blank(offset: s.scan.nextOffset) : .full
            return link
        }
    }

    /// Applies the commit frames the scan accepted since the last call.
    private func apply(_ s: inout State, bytes: UnsafeRawBufferPointer, owner: AnyObject) throws(FirnError) {
        while s.applied < s.scan.frames.count {
            let frame = s.scan.frames[s.applied]
            s.applied += 1
            guard frame.header.kind == .commit else { continue }
            s.links.append(try Self.apply(frame, over: s.links.last ?? s.root, region: region, bytes: bytes, owner: owner,
                                          geometry: geometry, countLimit: countLimit,
                                          checkpointHasTree: checkpointHasTree))
        }
    }

    /// The link of commit frame `frame`, which `LogScan` accepted from
    /// `bytes` (the region's pages, kept mapped by `owner`): `previous`
    /// with the frame's payload applied. `.corrupt` naming the frame's
    /// first page and version when it checks out but cannot be applied.
    /// What every reader does with a frame, and what `verify` checks each
    /// frame with.
    static func apply(
        _ frame: LogScan.Frame, over previous: LogOverlayVersion, region: LogRegion, bytes: UnsafeRawBufferPointer,
        owner: AnyObject, geometry: PageGeometry, countLimit: UInt64,
        checkpointHasTree: (String) throws(FirnError) -> Bool
    ) throws(FirnError) -> LogOverlayVersion {
        // The scan checked the frame's span against the region and the
        // payload's length and checksum: the slice is inside `bytes`.
        let start = Int(frame.offset) + LogFrameHeader.size
        let payload = UnsafeRawBufferPointer(rebasing: bytes[start..<start + Int(frame.header.payloadLength)])
        return try previous.applying(
            payload: payload, version: frame.header.version, owner: owner, geometry: geometry,
            countLimit: countLimit, page: region.page(atByte: frame.offset, pageSize: geometry.pageSize),
            checkpointHasTree: checkpointHasTree)
    }
}

/// Appends frames to a log region (docs/COMMIT-PATH.md, "The commit log").
/// Each frame is one positional write: the frame, then zeros to the end of
/// its last page unless this appender wrote those zeros already (a packed
/// frame after one of its own in the same page writes its own bytes only).
/// The frames before it stay as they are: rewriting them would store the
/// same bytes, and the crash suites tear and drop each frame's write on its
/// own, which covers whatever a writeback of the whole page can leave. A
/// commit that is not deferred, and every seal, is then synced, and only
/// then acknowledged. A deferred frame may instead be kept in memory
/// (`buffered`, FORMAT.md 8.1) as the bytes its write would store, and the
/// kept frames written with one write by `flush()` or before the next
/// frame that is not kept: the file then holds exactly what frame-at-a-time
/// writes would have left. One writer at a time (the writer lock), not
/// thread-safe itself.
final class LogAppender {
    let io: any FileIO
    let region: LogRegion
    let geometry: PageGeometry
    /// Where the next frame starts, in bytes from the region's start.
    private(set) var nextOffset: UInt64
    /// Whether the bytes from `nextOffset` to the end of its page are zeros
    /// this appender wrote (after a packed frame of its own): the next frame
    /// then writes its own bytes only. False at a page boundary, after a
    /// resume (a failed or stale frame may lie there) and after a failed
    /// write.
    private var tailIsZero = false
    private(set) var chain: UInt32
    private(set) var newestVersion: UInt64
    private(set) var durableVersion: UInt64
    /// The last frame this appender wrote, as a scan would accept it: the
    /// store hands it to its `LogChain` with the payload it has in memory.
    private(set) var lastFrame: LogScan.Frame?
    /// Deferred frames kept in memory instead of written (`buffered`),
    /// their bytes from file offset `pendingFileOffset`, as their writes
    /// would have stored them; `flush()` writes them with one `pwrite`.
    private var pending: [UInt8] = []
    private var pendingFileOffset: UInt64 = 0
    /// When the oldest of them was appended (monotonic nanoseconds).
    private(set) var pendingSince: UInt64 = 0
    /// Whether deferred frames are waiting in memory.
    var hasPending: Bool { !pending.isEmpty }
    /// How many bytes wait.
    var pendingBytes: Int { pending.count }

    private init(io: any FileIO, region: LogRegion, geometry: PageGeometry, scan: LogScan) {
        self.io = io
        self.region = region
        self.geometry = geometry
        nextOffset = scan.nextOffset
        chain = scan.chain
        newestVersion = scan.newestVersion
        durableVersion = scan.durableVersion
    }

    /// An appender for an empty region, as its checkpoint made it.
    static func fresh(io: any FileIO, region: LogRegion, geometry: PageGeometry) -> LogAppender {
        LogAppender(io: io, region: region, geometry: geometry,
                    scan: LogScan(frames: [], end: .blank(offset: 0), newestVersion: region.epoch,
                                  durableVersion: region.epoch, nextOffset: 0, chain: region.seed))
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

    /// Whether a frame with `payloadLength` payload bytes fits the region.
    /// A deferred commit also leaves room for the seal after it: an open
    /// group can always be sealed where it is, so `Store.sync()` never has
    /// to checkpoint for want of room (only after a crash left an end no
    /// frame may follow).
    func fits(payloadLength: Int, deferred: Bool = false) -> Bool {
        let regionBytes = region.pageCount.multipliedReportingOverflow(by: UInt64(geometry.pageSize))
        guard !regionBytes.overflow, nextOffset <= regionBytes.partialValue,
              let span = LogFrameHeader.span(offset: nextOffset, payloadLength: UInt64(payloadLength), packs: deferred,
                                             pageSize: geometry.pageSize) else { return false }
        // The payload must end inside the region; a packed frame's span
        // then does too, a page-ending one's too (the region is whole pages).
        let frameBytes = UInt64(LogFrameHeader.size) + UInt64(payloadLength)
        let room = regionBytes.partialValue - nextOffset
        let sealRoom = deferred ? UInt64(LogFrameHeader.size) : 0
        return frameBytes <= room && UInt64(span) * UInt64(LogFrameHeader.alignment) + sealRoom <= room
    }

    /// Appends the commit of version `newestVersion + 1` with `payload`,
    /// synced unless `deferred`; returns its version. A deferred commit joins
    /// the open group, made durable by the next commit that is not deferred
    /// or by `seal()`. `misuse` when the frame does not fit (check `fits`).
    /// `sync` false skips the sync of a commit that is not deferred: a
    /// store with durability `.none`, whose commits survive a crash of the
    /// process but promise nothing after a power loss. A commit that is not
    /// deferred and fails is undone (`write`); `undoFailed` gets the error
    /// when that fails too.
    ///
    /// `buffered` (deferred only): the frame is kept in memory, not
    /// written, until `flush()` or the next frame that is not deferred;
    /// the caller publishes its version only then (FORMAT.md 8.1).
    @discardableResult
    func appendCommit(payload: [UInt8], deferred: Bool, buffered: Bool = false, timestampNanoseconds: UInt64,
                      sync: Bool = true, undoFailed: (FirnError) -> Void = { _ in }) throws(FirnError) -> UInt64 {
        guard fits(payloadLength: payload.count, deferred: deferred), newestVersion < UInt64.max else {
            throw FirnError.misuse("\(io.path): log frame of \(payload.count) bytes does not fit the region")
        }
        let version = newestVersion + 1
        try write(kind: .commit, version: version, payload: payload, deferred: deferred, buffered: deferred && buffered,
                  timestampNanoseconds: timestampNanoseconds, sync: !deferred && sync, undoFailed: undoFailed)
        newestVersion = version
        if !deferred { durableVersion = version }
        return version
    }

    /// Makes the open group durable: a seal frame naming its last version,
    /// then the sync. Nothing to do when no group is open. `misuse` when the
    /// region has no room for the seal (a deferred frame always leaves it;
    /// the caller checkpoints then, which makes the group durable its own
    /// way). A seal that fails is undone (`write`); `undoFailed` gets the
    /// error when that fails too.
    func seal(timestampNanoseconds: UInt64, undoFailed: (FirnError) -> Void = { _ in }) throws(FirnError) {
        guard durableVersion < newestVersion else { return }
        guard fits(payloadLength: 0) else {
            throw FirnError.misuse("\(io.path): no room left in the log region for a seal frame")
        }
        try write(kind: .seal, version: newestVersion, payload: [], deferred: false, buffered: false,
                  timestampNanoseconds: timestampNanoseconds, sync: true, undoFailed: undoFailed)
        durableVersion = newestVersion
    }

    /// Writes the frame at `nextOffset` and, with `sync`, syncs it; only
    /// then does the appender move past it.
    ///
    /// If the write or the sync fails, a frame that is not deferred (a
    /// durable commit, a seal) is undone: its pages are written back as
    /// they were before it (the open group's frames before it in its first
    /// page, zeros after them), and synced with `sync`. Left in the file, it
    /// would be whole there (a failing write can have stored all of a small
    /// frame, a failing sync all of any), and the next first opener would
    /// take its version as durable: a commit its caller was told failed, or
    /// a group whose `sync()` failed. Zeros end the scan as blank, so the
    /// next frame goes where this one was. When the undo fails too,
    /// `undoFailed` gets the original error: the store must then refuse use
    /// until reopened, as after a commit record it could not restore. A
    /// failed deferred frame may stay: no opener takes it without a seal
    /// after it, and none can follow it (the next writer finds it past the
    /// published version and checkpoints).
    ///
    /// A `buffered` frame only joins `pending`. Any other frame first
    /// writes what is pending (`flush()`); when that fails, the deferred
    /// commits it held were acknowledged and can no longer reach the file,
    /// so `undoFailed` gets the error too (the store refuses use).
    private func write(kind: LogFrameHeader.Kind, version: UInt64, payload: [UInt8], deferred: Bool, buffered: Bool,
                       timestampNanoseconds: UInt64, sync: Bool, undoFailed: (FirnError) -> Void) throws(FirnError) {
        lastFrame = nil
        if !buffered {
            do {
                try flush()
            } catch {
                undoFailed(error)
                throw error
            }
        }
        let pageSize = UInt64(geometry.pageSize)
        let packs = kind == .commit && deferred
        let pageIndex = nextOffset / pageSize
        guard let span = LogFrameHeader.span(offset: nextOffset, payloadLength: UInt64(payload.count), packs: packs,
                                             pageSize: geometry.pageSize),
              let pageOffset = region.fileOffset(ofPage: pageIndex, pageSize: geometry.pageSize) else {
            throw FirnError.misuse("\(io.path): log frame position overflows")
        }
        let fileOffset = pageOffset + nextOffset % pageSize
        let next = nextOffset + UInt64(span) * UInt64(LogFrameHeader.alignment)
        let header = LogFrameHeader(
            epoch: region.epoch, version: version, timestampNanoseconds: timestampNanoseconds,
            payloadLength: UInt64(payload.count), span: span, kind: kind, deferred: deferred,
            previousChecksum: chain, payloadChecksum: CRC32C.checksum(payload))
        let (headerBytes, checksum) = header.encoded()
        // The frame, then zeros to the end of its last page, so no byte of
        // an older use of the pages stays inside the frame or right after
        // it; the zeros of its first page are left out when this appender
        // wrote them there already.
        let frameLength = headerBytes.count + payload.count
        let pageEnd = (next + pageSize - 1) / pageSize * pageSize
        let staysInPage = pageEnd - pageIndex * pageSize == pageSize
        let writeLength = tailIsZero && staysInPage ? frameLength : Int(pageEnd - nextOffset)
        tailIsZero = false
        if buffered {
            keep(header: headerBytes, payload: payload, at: fileOffset, length: writeLength)
        } else {
            try writeFrame(header: headerBytes, payload: payload, at: fileOffset, length: writeLength,
                           undoable: !deferred, sync: sync, undoFailed: undoFailed)
        }
        lastFrame = LogScan.Frame(header: header, offset: nextOffset, checksum: checksum)
        chain = checksum
        nextOffset = next
        // The next frame shares this one's last page only after a packed
        // one, whose write ended that page with zeros.
        tailIsZero = next % pageSize != 0
    }

    /// One frame's write (its header and payload, then zeros to `length`)
    /// at file offset `fileOffset`, synced with `sync`. When it fails and
    /// the frame is `undoable` (not deferred), zeros go back where it was
    /// (`write`); `undoFailed` gets the error when that fails too.
    private func writeFrame(header: [UInt8], payload: [UInt8], at fileOffset: UInt64, length: Int, undoable: Bool,
                            sync: Bool, undoFailed: (FirnError) -> Void) throws(FirnError) {
        var buffer = [UInt8](repeating: 0, count: length)
        buffer.withUnsafeMutableBytes { (bytes) in
            UnsafeMutableRawBufferPointer(rebasing: bytes[0..<header.count]).copyBytes(from: header)
            UnsafeMutableRawBufferPointer(rebasing: bytes[header.count..<header.count + payload.count]).copyBytes(from: payload)
        }
        do {
            try withBytes(buffer) { (bytes) throws(FirnError) in try io.write(bytes, at: fileOffset) }
            if sync { try io.sync() }
        } catch let failure {
            // Back as before the frame: zeros where it was.
            if undoable {
                _ = buffer.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) }
                do {
                    try withBytes(buffer) { (bytes) throws(FirnError) in try io.write(bytes, at: fileOffset) }
                    if sync { try io.sync() }
                } catch {
                    undoFailed(failure)
                }
            }
            throw failure
        }
    }

    /// Writes the deferred frames kept in memory, with one `pwrite`. After
    /// a failure they are dropped (the caller's store refuses use: they
    /// were acknowledged, and other processes never saw them), and the
    /// next frame writes whole pages again, as after any failed write.
    func flush() throws(FirnError) {
        guard !pending.isEmpty else { return }
        defer { pending.removeAll(keepingCapacity: true) }
        do {
            try withBytes(pending) { (bytes) throws(FirnError) in try io.write(bytes, at: pendingFileOffset) }
        } catch {
            tailIsZero = false
            throw error
        }
    }

    /// Puts a frame's write (its header and payload, then zeros to
    /// `length`) into `pending` at file offset `fileOffset`: right after
    /// the bytes already there, or over the zeros at their end when the
    /// frame packs into the last page they cover.
    private func keep(header: [UInt8], payload: [UInt8], at fileOffset: UInt64, length: Int) {
        if pending.isEmpty {
            pendingFileOffset = fileOffset
            pendingSince = monotonicNanoseconds()
        }
        // Frames follow one another in the region, whose pages are one
        // run of the file: the offset is at or before the end of pending.
        let start = Int(fileOffset - pendingFileOffset)
        if start + length > pending.count {
            pending.append(contentsOf: repeatElement(0, count: start + length - pending.count))
        }
        pending.withUnsafeMutableBytes { bytes in
            let frame = bytes[start..<(start + length)]
            UnsafeMutableRawBufferPointer(rebasing: frame).initializeMemory(as: UInt8.self, repeating: 0)
            UnsafeMutableRawBufferPointer(rebasing: bytes[start..<(start + header.count)]).copyBytes(from: header)
            UnsafeMutableRawBufferPointer(rebasing: bytes[(start + header.count)..<(start + header.count + payload.count)])
                .copyBytes(from: payload)
        }
    }
}

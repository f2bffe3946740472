/// Reading a log region from its start: the frames that chain from the
/// region's seed, in order, each whole (docs/COMMIT-PATH.md, "The commit
/// log"). The scan stops where the next frame would start when what is
/// there does not continue the chain, and says why; what comes after it is
/// never read as a frame.
///
/// Which versions it establishes:
/// - `newestVersion`: the last commit frame that checks out.
/// - `durableVersion`: the last version made durable, by a commit written
///   with its sync (not deferred) or by a seal frame. After a power loss
///   only this one may be opened: commit frames after it belong to a group
///   whose durability point never came, and a group survives whole or not
///   at all. Both are the epoch when no frame made them.
struct LogScan: Equatable {
    struct Frame: Equatable {
        var header: LogFrameHeader
        /// The frame's first byte, counted from the region's start.
        var offset: UInt64
        /// The header checksum the next frame chains to.
        var checksum: UInt32
    }

    /// Why the scan stopped.
    enum End: Equatable {
        /// The frames fill the region.
        case full
        /// Zeros where the next frame would start (offsets are bytes from
        /// the region's start).
        case blank(offset: UInt64)
        /// Other data (a reused page), not a frame.
        case foreign(offset: UInt64)
        /// A whole frame of another epoch: the region's pages held an older
        /// checkpoint's log before this checkpoint took them (regions are
        /// reused, so every new region starts so). Like `foreign`: frames
        /// of this epoch are written in order from the region's start, so
        /// none was written here, and one beyond (a write that overtook a
        /// lost one) chains to a frame that is not here, never to a new one.
        case otherEpoch(offset: UInt64, epoch: UInt64)
        /// A frame that did not reach the disk whole: its header or payload
        /// checksum fails. Expected after a power loss during a write.
        case torn(offset: UInt64, detail: String)
        /// A whole frame of this epoch that does not follow the chain:
        /// chained to another frame.
        case stale(offset: UInt64, detail: String)
        /// A frame whose checksums hold but whose fields no writer produces.
        case damaged(offset: UInt64, detail: String)

        /// Whether a frame appended here can never be taken for part of a
        /// chain it does not belong to: nothing of this epoch is here. After a torn, stale or damaged end a whole frame of this
        /// epoch may lie beyond it, and the next commit starts a new region.
        var allowsAppend: Bool {
            switch self {
            case .blank, .foreign, .otherEpoch: return true
            case .full, .torn, .stale, .damaged: return false
            }
        }
    }

    var frames: [Frame]
    var end: End
    var newestVersion: UInt64
    var durableVersion: UInt64
    /// Where the last accepted frame's span ends: the next one goes there.
    var nextOffset: UInt64
    /// The checksum the next frame chains to.
    var chain: UInt32

    /// Scans `region`, whose bytes are `bytes` (exactly `pageCount` pages).
    static func scan(_ region: LogRegion, bytes: UnsafeRawBufferPointer, geometry: PageGeometry) -> LogScan {
        var scan = start(region)
        scan.resume(region, bytes: bytes, geometry: geometry)
        return scan
    }

    /// A scan of `region` that has read nothing yet.
    static func start(_ region: LogRegion) -> LogScan {
        LogScan(frames: [], end: .full, newestVersion: region.epoch, durableVersion: region.epoch, nextOffset: 0, chain: region.seed)
    }

    /// Reads on from the end of the last frame accepted, as `scan`
    /// would from the start: a reader following a log another process
    /// appends to reads each frame once. Where the scan stopped before (a
    /// frame still being written was torn then) is read again.
    mutating func resume(_ region: LogRegion, bytes: UnsafeRawBufferPointer, geometry: PageGeometry) {
        var scan = self
        defer { self = scan }
        let pageSize = UInt64(geometry.pageSize)
        let regionBytes = min(region.pageCount, UInt64(bytes.count) / pageSize) * pageSize
        // A frame's header is its first 64 bytes: fewer left is a full region.
        while regionBytes - scan.nextOffset >= UInt64(LogFrameHeader.size) {
            let offset = scan.nextOffset
            let start = Int(offset)
            let header: LogFrameHeader, checksum: UInt32
            switch LogFrameHeader.read(UnsafeRawBufferPointer(rebasing: bytes[start..<start + LogFrameHeader.size])) {
            case .blank: scan.end = .blank(offset: offset); return
            case .foreign: scan.end = .foreign(offset: offset); return
            case let .torn(stored, computed):
                scan.end = .torn(offset: offset, detail: "header checksum \(hex32(stored)), computed \(hex32(computed))")
                return
            case let .defect(detail):
                scan.end = .damaged(offset: offset, detail: detail)
                return
            case let .header(read, sum):
                header = read
                checksum = sum
            }
            // Another checkpoint's frame, or one of this epoch that follows
            // a frame the chain does not hold: not part of this log.
            guard header.epoch == region.epoch else {
                scan.end = .otherEpoch(offset: offset, epoch: header.epoch)
                return
            }
            guard header.previousChecksum == scan.chain else {
                scan.end = .stale(offset: offset, detail: "chained to \(hex32(header.previousChecksum)), expected \(hex32(scan.chain))")
                return
            }
            // Chained and whole: from here on a wrong field is damage.
            if let defect = Self.fieldDefect(header, offset: offset, regionBytes: regionBytes, pageSize: pageSize, scan: scan) {
                scan.end = .damaged(offset: offset, detail: defect)
                return
            }
            let payloadStart = start + LogFrameHeader.size
            let payload = UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<payloadStart + Int(header.payloadLength)])
            let computed = CRC32C.checksum(payload)
            guard computed == header.payloadChecksum else {
                scan.end = .torn(offset: offset, detail: "payload checksum \(hex32(header.payloadChecksum)), computed \(hex32(computed))")
                return
            }
            // A whole, chained commit frame whose payload breaks FORMAT.md
            // 8.2's rules (an operation before any tree, a tree name that
            // is not a name, a key over the limit) is not what a crash
            // leaves (its checksum holds): it is accepted here and refused
            // where it is applied (`LogOverlayVersion.appending`), so its
            // version is a defect (65) for every reader, not a damaged end
            // that quietly shows the version before it.
            scan.accept(Frame(header: header, offset: offset, checksum: checksum))
        }
        scan.end = .full
    }

    /// Moves past `frame`, which follows the scan (chained to it, no
    /// `fieldDefect`, its checksums and payload checked): the versions it
    /// makes newest or durable, the chain, where the next frame starts.
    /// `end` is left as it was: what lies after the frame is not read here.
    mutating func accept(_ frame: Frame) {
        let header = frame.header
        switch header.kind {
        case .commit:
            newestVersion = header.version
            if !header.deferred { durableVersion = header.version }
        case .seal:
            durableVersion = header.version
        }
        frames.append(frame)
        chain = frame.checksum
        nextOffset = frame.offset + UInt64(header.span) * UInt64(LogFrameHeader.alignment)
    }

    /// What is wrong with a chained frame's fields, or nil.
    static func fieldDefect(
        _ header: LogFrameHeader, offset: UInt64, regionBytes: UInt64, pageSize: UInt64, scan: LogScan
    ) -> String? {
        guard let span = LogFrameHeader.span(offset: offset, payloadLength: header.payloadLength, packs: header.packs,
                                             pageSize: Int(pageSize)),
              span == header.span else {
            return "spans \(header.span) units of \(LogFrameHeader.alignment) bytes for a payload of \(header.payloadLength) bytes"
        }
        // The payload inside the region; its span then ends inside it too
        // (a region is whole pages, a multiple of the alignment).
        guard header.payloadLength <= regionBytes - offset - UInt64(LogFrameHeader.size) else {
            return "a payload of \(header.payloadLength) bytes from region byte \(offset) runs past the region's \(regionBytes)"
        }
        switch header.kind {
        case .commit:
            guard scan.newestVersion < UInt64.max, header.version == scan.newestVersion + 1 else {
                return "commit of version \(header.version), expected \(scan.newestVersion &+ 1)"
            }
        case .seal:
            guard scan.durableVersion < scan.newestVersion, header.version == scan.newestVersion else {
                return "seal of version \(header.version), expected an open group ending at \(scan.newestVersion) (durable \(scan.durableVersion))"
            }
        }
        return nil
    }
}

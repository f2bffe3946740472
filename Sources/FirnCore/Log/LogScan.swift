/// Reading a log region from its start: the frames that chain from the
/// region's seed, in order, each whole (docs/COMMIT-PATH.md, "The commit
/// log"). The scan stops at the first page that does not continue the
/// chain and says why; what comes after it is never read as a frame.
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
        /// The frame's first page, counted from the region's start.
        var page: UInt64
        /// The header checksum the next frame chains to.
        var checksum: UInt32
    }

    /// Why the scan stopped.
    enum End: Equatable {
        /// The frames fill the region.
        case full
        /// Zeros where the next frame would start.
        case blank(page: UInt64)
        /// Other data (a reused page), not a frame.
        case foreign(page: UInt64)
        /// A whole frame of another epoch: the region's pages held an older
        /// checkpoint's log before this checkpoint took them (regions are
        /// reused, so every new region starts so). Like `foreign`: frames
        /// of this epoch are written in order from the region's start, so
        /// none was written here, and one beyond (a write that overtook a
        /// lost one) chains to a frame that is not here, never to a new one.
        case otherEpoch(page: UInt64, epoch: UInt64)
        /// A frame that did not reach the disk whole: its header or payload
        /// checksum fails. Expected after a power loss during a write.
        case torn(page: UInt64, detail: String)
        /// A whole frame of this epoch that does not follow the chain:
        /// chained to another frame.
        case stale(page: UInt64, detail: String)
        /// A frame whose checksums hold but whose fields no writer produces.
        case damaged(page: UInt64, detail: String)

        /// Whether a frame appended here can never be taken for part of a
        /// chain it does not belong to: the page holds nothing of this
        /// epoch. After a torn, stale or damaged end a whole frame of this
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
    /// The page after the last accepted frame: where the next one goes.
    var nextPage: UInt64
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
        LogScan(frames: [], end: .full, newestVersion: region.epoch, durableVersion: region.epoch, nextPage: 0, chain: region.seed)
    }

    /// Reads on from the page after the last frame accepted, as `scan`
    /// would from the start: a reader following a log another process
    /// appends to reads each frame once. Where the scan stopped before (a
    /// frame still being written was torn then) is read again.
    mutating func resume(_ region: LogRegion, bytes: UnsafeRawBufferPointer, geometry: PageGeometry) {
        var scan = self
        defer { self = scan }
        let pageSize = UInt64(geometry.pageSize)
        let regionPages = min(region.pageCount, UInt64(bytes.count) / pageSize)
        while scan.nextPage < regionPages {
            let page = scan.nextPage
            let offset = Int(page * pageSize)
            let first = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Int(pageSize)])
            let header: LogFrameHeader, checksum: UInt32
            switch LogFrameHeader.read(first) {
            case .blank: scan.end = .blank(page: page); return
            case .foreign: scan.end = .foreign(page: page); return
            case let .torn(stored, computed):
                scan.end = .torn(page: page, detail: "header checksum \(hex32(stored)), computed \(hex32(computed))")
                return
            case let .defect(detail):
                scan.end = .damaged(page: page, detail: detail)
                return
            case let .header(read, sum):
                header = read
                checksum = sum
            }
            // Another checkpoint's frame, or one of this epoch that follows
            // a frame the chain does not hold: not part of this log.
            guard header.epoch == region.epoch else {
                scan.end = .otherEpoch(page: page, epoch: header.epoch)
                return
            }
            guard header.previousChecksum == scan.chain else {
                scan.end = .stale(page: page, detail: "chained to \(hex32(header.previousChecksum)), expected \(hex32(scan.chain))")
                return
            }
            // Chained and whole: from here on a wrong field is damage.
            if let defect = Self.fieldDefect(header, page: page, regionPages: regionPages, pageSize: pageSize, scan: scan) {
                scan.end = .damaged(page: page, detail: defect)
                return
            }
            let payloadStart = offset + LogFrameHeader.size
            let payload = UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<payloadStart + Int(header.payloadLength)])
            let computed = CRC32C.checksum(payload)
            guard computed == header.payloadChecksum else {
                scan.end = .torn(page: page, detail: "payload checksum \(hex32(header.payloadChecksum)), computed \(hex32(computed))")
                return
            }
            if header.kind == .commit {
                let defect = try? LogPayload.forEach(payload, geometry: geometry) { _, _ in }
                if let defect {
                    scan.end = .damaged(page: page, detail: defect.description)
                    return
                }
                scan.newestVersion = header.version
                if !header.deferred { scan.durableVersion = header.version }
            } else {
                scan.durableVersion = header.version
            }
            scan.frames.append(Frame(header: header, page: page, checksum: checksum))
            scan.chain = checksum
            scan.nextPage = page + UInt64(header.pageCount)
        }
        scan.end = .full
    }

    /// What is wrong with a chained frame's fields, or nil.
    private static func fieldDefect(
        _ header: LogFrameHeader, page: UInt64, regionPages: UInt64, pageSize: UInt64, scan: LogScan
    ) -> String? {
        guard let pages = LogFrameHeader.pageCount(payloadLength: header.payloadLength, pageSize: Int(pageSize)),
              pages == header.pageCount else {
            return "spans \(header.pageCount) pages for a payload of \(header.payloadLength) bytes"
        }
        guard UInt64(header.pageCount) <= regionPages - page else {
            return "spans \(header.pageCount) pages from region page \(page), past the region's \(regionPages)"
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

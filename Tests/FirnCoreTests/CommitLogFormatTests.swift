import Testing
@testable import FirnCore
import FirnTestSupport

/// The commit log's frames and payloads (docs/COMMIT-PATH.md, "The commit
/// log"): every field a reader takes from the file is checked, and each
/// defect stops the scan with the reason that names it.
@Suite struct CommitLogFormatTests {
    static let geometry = PageGeometry(pageSize: 4096)
    static let region = LogRegion(startPage: 0, pageCount: 16, epoch: 40, seed: 0xC0FF_EE00)

    /// A region image built frame by frame, as the appender writes them.
    struct RegionImage {
        var bytes = [UInt8](repeating: 0, count: Int(CommitLogFormatTests.region.pageCount) * 4096)
        var offset: UInt64 = 0
        var chain = CommitLogFormatTests.region.seed

        /// Writes a frame with `header` (checksums filled in unless given) and `payload`.
        @discardableResult
        mutating func add(version: UInt64, kind: LogFrameHeader.Kind = .commit, deferred: Bool = false,
                          payload: [UInt8] = [], edit: (inout LogFrameHeader) -> Void = { _ in }) -> LogFrameHeader {
            var header = LogFrameHeader(
                epoch: CommitLogFormatTests.region.epoch, version: version, timestampNanoseconds: 7,
                payloadLength: UInt64(payload.count),
                span: LogFrameHeader.span(offset: offset, payloadLength: UInt64(payload.count),
                                          packs: kind == .commit && deferred, pageSize: 4096) ?? 1,
                kind: kind, deferred: deferred, previousChecksum: chain, payloadChecksum: CRC32C.checksum(payload))
            edit(&header)
            let (encoded, checksum) = header.encoded()
            let offset = Int(self.offset)
            bytes.replaceSubrange(offset..<offset + encoded.count, with: encoded)
            let end = min(bytes.count, offset + encoded.count + payload.count)
            bytes.replaceSubrange(offset + encoded.count..<end, with: payload.prefix(end - offset - encoded.count))
            chain = checksum
            self.offset += UInt64(max(header.span, 1)) * UInt64(LogFrameHeader.alignment)
            return header
        }

        func scan() -> LogScan {
            bytes.withUnsafeBytes { LogScan.scan(CommitLogFormatTests.region, bytes: $0, geometry: CommitLogFormatTests.geometry) }
        }
    }

    // MARK: headers

    @Test func headerRoundTrips() {
        let header = LogFrameHeader(epoch: 9, version: 12, timestampNanoseconds: 1_700_000_000_000_000_000,
                                    payloadLength: 5000, span: 81, kind: .commit, deferred: true,
                                    previousChecksum: 0xDEAD_BEEF, payloadChecksum: 0x1234_5678)
        let (bytes, encodedChecksum) = header.encoded()
        #expect(bytes.count == LogFrameHeader.size)
        #expect(encodedChecksum == CRC32C.checksum(Array(bytes[0..<60])))
        guard case let .header(read, checksum) = bytes.withUnsafeBytes({ LogFrameHeader.read($0) }) else {
            Issue.record("header did not read back")
            return
        }
        #expect(read == header)
        #expect(checksum == CRC32C.checksum(Array(bytes[0..<60])))
    }

    @Test func spanPacksDeferredCommitsAndEndsOthersAtAPage() {
        // A deferred commit: to the next 64-byte boundary.
        #expect(LogFrameHeader.span(offset: 0, payloadLength: 0, packs: true, pageSize: 4096) == 1)
        #expect(LogFrameHeader.span(offset: 128, payloadLength: 1, packs: true, pageSize: 4096) == 2)
        #expect(LogFrameHeader.span(offset: 4032, payloadLength: 64, packs: true, pageSize: 4096) == 2)
        // Any other frame: to the next page boundary, from wherever it starts.
        #expect(LogFrameHeader.span(offset: 0, payloadLength: 0, packs: false, pageSize: 4096) == 64)
        #expect(LogFrameHeader.span(offset: 128, payloadLength: 0, packs: false, pageSize: 4096) == 62)
        #expect(LogFrameHeader.span(offset: 0, payloadLength: 4096 - 64, packs: false, pageSize: 4096) == 64)
        #expect(LogFrameHeader.span(offset: 0, payloadLength: 4096 - 63, packs: false, pageSize: 4096) == 128)
        // Unaligned starts and overflows have none.
        #expect(LogFrameHeader.span(offset: 100, payloadLength: 0, packs: true, pageSize: 4096) == nil)
        #expect(LogFrameHeader.span(offset: 0, payloadLength: UInt64.max, packs: false, pageSize: 4096) == nil)
        #expect(LogFrameHeader.span(offset: UInt64.max - 63, payloadLength: 0, packs: true, pageSize: 4096) == nil)
        #expect(LogFrameHeader.span(offset: 0, payloadLength: UInt64(UInt32.max) * 64, packs: true, pageSize: 4096) == nil)
    }

    /// Rewrites header bytes `[offset, offset + bytes.count)` and fixes the checksum.
    static func reading(_ header: LogFrameHeader, patch offset: Int, _ bytes: [UInt8]) -> LogFrameHeader.Reading {
        var encoded = header.encoded().bytes
        encoded.replaceSubrange(offset..<offset + bytes.count, with: bytes)
        let crc = CRC32C.checksum(Array(encoded[0..<60]))
        withUnsafeBytes(of: crc.littleEndian) { encoded.replaceSubrange(60..<64, with: $0) }
        return encoded.withUnsafeBytes { LogFrameHeader.read($0) }
    }

    @Test func headerFieldDefectsAreNamed() {
        let header = LogFrameHeader(epoch: 1, version: 2, timestampNanoseconds: 0, payloadLength: 0, span: 64,
                                    kind: .commit, deferred: false, previousChecksum: 0, payloadChecksum: 0)
        let cases: [(Int, [UInt8], String)] = [
            (44, [0], "kind 0"), (44, [3], "kind 3"), (44, [255], "kind 255"),
            (45, [2], "flags 2"), (45, [0x81], "flags 129"),
            (46, [1], "reserved"), (47, [0x80], "reserved"), (56, [1, 0, 0, 0], "reserved"), (59, [9], "reserved"),
        ]
        for (offset, bytes, expected) in cases {
            guard case let .defect(detail) = Self.reading(header, patch: offset, bytes) else {
                Issue.record("byte \(offset) = \(bytes) was not refused")
                continue
            }
            #expect(detail.contains(expected), "\(detail)")
        }
        var seal = header
        seal.kind = .seal
        seal.payloadLength = 1
        guard case let .defect(detail) = seal.encoded().bytes.withUnsafeBytes({ LogFrameHeader.read($0) }) else {
            Issue.record("a seal frame with a payload was not refused")
            return
        }
        #expect(detail.contains("seal frame"))
        seal.payloadLength = 0
        seal.deferred = true
        if case .header = seal.encoded().bytes.withUnsafeBytes({ LogFrameHeader.read($0) }) {
            Issue.record("a deferred seal frame was not refused")
        }
    }

    @Test func blankForeignAndTornHeadersAreToldApart() {
        #expect([UInt8](repeating: 0, count: 64).withUnsafeBytes { LogFrameHeader.read($0) } == .blank)
        var foreign = [UInt8](repeating: 0, count: 64)
        foreign[3] = 1
        #expect(foreign.withUnsafeBytes { LogFrameHeader.read($0) } == .foreign)
        let header = LogFrameHeader(epoch: 1, version: 2, timestampNanoseconds: 0, payloadLength: 0, span: 64,
                                    kind: .commit, deferred: false, previousChecksum: 0, payloadChecksum: 0)
        for offset in [8, 17, 33, 44, 52, 60, 63] {
            var bytes = header.encoded().bytes
            bytes[offset] ^= 0x10
            guard case .torn = bytes.withUnsafeBytes({ LogFrameHeader.read($0) }) else {
                Issue.record("a flipped byte \(offset) was not taken for a torn header")
                continue
            }
        }
        #expect([UInt8](repeating: 0, count: 10).withUnsafeBytes { LogFrameHeader.read($0) } == .defect("shorter than 64 bytes"))
    }

    // MARK: payloads

    @Test func payloadRoundTrips() {
        let operations: [LogOperation] = [
            .createTree("a"), .put(tree: "a", key: [], value: []), .put(tree: "a", key: [1, 2], value: Array(0..<200)),
            .delete(tree: "b", key: [9]), .dropTree("b"), .createTree("b"), .put(tree: "b", key: [0xFF], value: [1]),
            .put(tree: "a", key: [UInt8](repeating: 7, count: Self.geometry.maxKeyLength), value: [UInt8](repeating: 1, count: 70_000)),
            .count(tree: "a", entries: 3), .count(tree: "b", entries: UInt64.max),
        ]
        let bytes = Payloads.encode(operations)
        #expect(bytes.withUnsafeBytes { LogPayload.operations($0, geometry: Self.geometry) } == .success(operations))
        // A tree is named once for consecutive operations on it.
        let two = Payloads.encode([.put(tree: "tree", key: [1], value: []), .delete(tree: "tree", key: [2])])
        #expect(two.count == 1 + 2 + 4 + (1 + 2 + 1 + 4) + (1 + 2 + 1))
    }

    @Test func payloadDefectsNameTheOffset() {
        let max = UInt16(Self.geometry.maxKeyLength)
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        let named: [UInt8] = [1] + le16(1) + [0x74]
        let cases: [([UInt8], Int, String)] = [
            ([0], 0, "operation tag 0"), ([7], 0, "operation tag 7"), ([6] + [UInt8](repeating: 0, count: 8), 0, "before any tree"), ([2] + le16(0) + [0, 0, 0, 0], 0, "before any tree"),
            ([4], 0, "before any tree"), ([1] + le16(0), 0, "tree name"), ([1] + le16(3) + [0x74], 0, "past the payload"),
            ([1] + le16(2) + [0xC3, 0x28], 0, "tree name"), ([1] + le16(max + 1) + [UInt8](repeating: 0x61, count: Int(max) + 1), 0, "tree name"),
            ([1], 0, "past the payload"),
            (named + [2] + le16(max + 1), 4, "key length"), (named + [2] + le16(1) + [5], 4, "past the payload's end"),
            (named + [2] + le16(1) + [5] + [9, 0, 0, 0] + [1], 4, "past the payload's end"),
            (named + [2] + le16(1) + [5] + [0xFF, 0xFF, 0xFF, 0xFF], 4, "past the payload's end"),
            (named + [3] + le16(max + 1), 4, "key length"), (named + [3] + le16(2) + [1], 4, "past the payload's end"),
            (named + [3], 4, "key length"), (named + [5, 9], 5, "operation tag 9"),
            (named + [6, 1, 2, 3, 4, 5, 6, 7], 4, "count runs past the payload's end"),
        ]
        for (bytes, offset, expected) in cases {
            switch bytes.withUnsafeBytes({ LogPayload.operations($0, geometry: Self.geometry) }) {
            case .success: Issue.record("\(bytes) was accepted")
            case let .failure(defect):
                #expect(defect.offset == offset, "\(bytes): \(defect)")
                #expect(defect.detail.contains(expected), "\(bytes): \(defect)")
            }
        }
    }

    // MARK: scans

    @Test func scanAcceptsAChainAndTracksDurability() {
        var image = RegionImage()
        image.add(version: 41, payload: Payloads.sample)
        image.add(version: 42, deferred: true, payload: Payloads.sample)
        image.add(version: 43, deferred: true, payload: [UInt8](repeating: 0, count: 0) + Payloads.encode([.dropTree("t")]))
        var scan = image.scan()
        #expect(scan.frames.map(\.header.version) == [41, 42, 43])
        #expect(scan.newestVersion == 43)
        #expect(scan.durableVersion == 41)
        // The deferred frames share a page (64-byte aligned); the durable
        // one before them ended its page.
        #expect(scan.frames.map(\.offset) == [0, 4096, 4224])
        #expect(scan.end == .blank(offset: 4352))
        image.add(version: 43, kind: .seal)
        scan = image.scan()
        #expect(scan.durableVersion == 43)
        // A seal ends its page: nothing is written into it again.
        #expect(scan.nextOffset == 8192)
        // A large payload spans pages; the next frame follows it.
        image.add(version: 44, payload: Payloads.encode([.put(tree: "t", key: [1], value: [UInt8](repeating: 3, count: 9000))]))
        image.add(version: 45, payload: Payloads.sample)
        scan = image.scan()
        #expect(scan.frames.map(\.offset) == [0, 4096, 4224, 4352, 8192, 20480])
        #expect(scan.durableVersion == 45)
        #expect(scan.end == .blank(offset: 24576))
    }

    /// What the appender writes for each frame: a frame that starts a page
    /// or follows a resume writes to its page's end (the zeros after it
    /// overwrite whatever an older use left there); a packed frame after one
    /// of the appender's own writes its own bytes only, the zeros after it
    /// being there already. The frames before it are never rewritten.
    @Test func aPackedFrameAfterTheAppendersOwnWritesOnlyItsBytes() throws {
        let geometry = PageGeometry(pageSize: 4096)
        // Stale bytes over the whole region, as an older epoch leaves them.
        let memory = MemoryIO([UInt8](repeating: 0xA5, count: Int(Self.region.pageCount) * 4096))
        let recording = RecordingIO(memory)
        func writes() -> [(offset: UInt64, count: Int)] {
            recording.operations.compactMap { if case let .write(offset, bytes) = $0 { (offset, bytes.count) } else { nil } }
        }
        let frame = LogFrameHeader.size + Payloads.sample.count
        let appender = LogAppender.fresh(io: recording, region: Self.region, geometry: geometry)
        try appender.appendCommit(payload: Payloads.sample, deferred: false, timestampNanoseconds: 1)
        try appender.appendCommit(payload: Payloads.sample, deferred: true, timestampNanoseconds: 2)
        try appender.appendCommit(payload: Payloads.sample, deferred: true, timestampNanoseconds: 3)
        try appender.seal(timestampNanoseconds: 4)
        #expect(writes().map(\.offset) == [0, 4096, 4224, 4352])
        #expect(writes().map(\.count) == [4096, 4096, frame, LogFrameHeader.size])
        var scan = memory.bytes.withUnsafeBytes { LogScan.scan(Self.region, bytes: $0, geometry: geometry) }
        #expect(scan.frames.map(\.header.version) == [41, 42, 43, 43])
        #expect(scan.durableVersion == 43 && scan.nextOffset == 8192)

        // Resumed where the scan ends, the next packed frame starts a page
        // (after the seal) and writes to its end; the one after it, its bytes.
        let before = writes().count
        let resumed = try #require(LogAppender.resume(io: recording, region: Self.region, geometry: geometry, scan: scan,
                                                      acceptOpenGroup: false))
        try resumed.appendCommit(payload: Payloads.sample, deferred: true, timestampNanoseconds: 5)
        try resumed.appendCommit(payload: Payloads.sample, deferred: true, timestampNanoseconds: 6)
        #expect(writes().dropFirst(before).map(\.count) == [4096, frame])
        scan = memory.bytes.withUnsafeBytes { LogScan.scan(Self.region, bytes: $0, geometry: geometry) }
        #expect(scan.frames.map(\.header.version) == [41, 42, 43, 43, 44, 45])
        #expect(scan.end == .blank(offset: 8192 + 2 * 128))
    }

    @Test func anEmptyRegionScansToItsEpoch() {
        let scan = RegionImage().scan()
        #expect(scan.frames.isEmpty)
        #expect(scan.newestVersion == Self.region.epoch && scan.durableVersion == Self.region.epoch)
        #expect(scan.end == .blank(offset: 0))
        #expect(scan.chain == Self.region.seed)
    }

    @Test func aFullRegionEndsTheScan() {
        var image = RegionImage()
        for version in UInt64(41)...56 { image.add(version: version, payload: Payloads.sample) }
        let scan = image.scan()
        #expect(scan.frames.count == 16)
        #expect(scan.end == .full)
        #expect(!scan.end.allowsAppend)
    }

    /// Each way a frame fails stops the scan there, with the frames before it kept.
    @Test func eachDefectStopsTheScanAtItsFrame() {
        typealias Edit = (inout LogFrameHeader) -> Void
        let headerCases: [(String, Edit, (LogScan.End) -> Bool)] = [
            ("another epoch", { $0.epoch = 39 }, { if case .otherEpoch(4096, 39) = $0 { true } else { false } }),
            ("a broken chain", { $0.previousChecksum ^= 1 }, { if case .stale(4096, _) = $0 { true } else { false } }),
            ("a skipped version", { $0.version = 43 }, { if case .damaged(4096, _) = $0 { true } else { false } }),
            ("a repeated version", { $0.version = 41 }, { if case .damaged(4096, _) = $0 { true } else { false } }),
            ("too long a span", { $0.span += 1 }, { if case .damaged(4096, _) = $0 { true } else { false } }),
            ("too short a span", { $0.span = 1 }, { if case .damaged(4096, _) = $0 { true } else { false } }),
            ("no span", { $0.span = 0 }, { if case .damaged(4096, _) = $0 { true } else { false } }),
            ("a durable frame packed", { $0.span = 2 }, { if case .damaged(4096, _) = $0 { true } else { false } }),
            ("a payload past the region", {
                $0.payloadLength = 16 * 4096
                $0.span = LogFrameHeader.span(offset: 4096, payloadLength: 16 * 4096, packs: false, pageSize: 4096) ?? 0
            },
             { if case .damaged(4096, _) = $0 { true } else { false } }),
            ("a payload checksum that fails", { $0.payloadChecksum ^= 1 }, { if case .torn(4096, _) = $0 { true } else { false } }),
        ]
        for (name, edit, expected) in headerCases {
            var image = RegionImage()
            image.add(version: 41, payload: Payloads.sample)
            image.add(version: 42, payload: Payloads.sample, edit: edit)
            let scan = image.scan()
            #expect(scan.frames.map(\.header.version) == [41], "\(name)")
            #expect(scan.durableVersion == 41 && scan.newestVersion == 41, "\(name)")
            #expect(expected(scan.end), "\(name): \(scan.end)")
            // Only another epoch's whole frame leaves nothing of this epoch here.
            #expect(scan.end.allowsAppend == (name == "another epoch"), "\(name)")
        }
        // A whole, chained frame whose payload breaks the rules is not a
        // damaged end (no crash leaves it): the scan takes it, and applying
        // it fails (CommitLogReportTests: every reader exits 65).
        var image = RegionImage()
        image.add(version: 41, payload: [2, 0, 0, 0, 0, 0, 0])
        #expect(image.scan().frames.map(\.header.version) == [41], "\(image.scan().end)")
        // A seal with no open group, or naming another version.
        for (deferred, sealVersion) in [(false, UInt64(41)), (true, 40), (true, 42)] {
            var image = RegionImage()
            image.add(version: 41, deferred: deferred, payload: Payloads.sample)
            image.add(version: sealVersion, kind: .seal)
            guard case .damaged(deferred ? 128 : 4096, _) = image.scan().end else {
                Issue.record("seal of \(sealVersion) after a commit (deferred \(deferred)) was accepted")
                continue
            }
        }
        // Garbage where the next frame would start is foreign: appending is safe.
        image = RegionImage()
        image.add(version: 41, payload: Payloads.sample)
        image.bytes[4096 + 5] = 0xAB
        #expect(image.scan().end == .foreign(offset: 4096))
        #expect(image.scan().end.allowsAppend)
    }

    // MARK: appending

    @Test func appenderWritesWhatTheScanReads() throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let io = try POSIXFile(path: directory.file("log"), writable: true, create: true)
        defer { io.close() }
        let region = LogRegion(startPage: 3, pageCount: 8, epoch: 100, seed: 77)
        let appender = LogAppender.fresh(io: io, region: region, geometry: Self.geometry)
        #expect(try appender.appendCommit(payload: Payloads.sample, deferred: false, timestampNanoseconds: 1) == 101)
        #expect(try appender.appendCommit(payload: Payloads.sample, deferred: true, timestampNanoseconds: 2) == 102)
        #expect(appender.durableVersion == 101 && appender.newestVersion == 102)
        try appender.seal(timestampNanoseconds: 3)
        #expect(appender.durableVersion == 102)
        try appender.seal(timestampNanoseconds: 4)  // nothing open: no frame
        // Six pages from page 2: the region's last.
        let big = Payloads.encode([.put(tree: "t", key: [], value: [UInt8](repeating: 1, count: 5 * 4096))])
        #expect(appender.fits(payloadLength: big.count))
        try appender.appendCommit(payload: big, deferred: false, timestampNanoseconds: 5)
        #expect(!appender.fits(payloadLength: Payloads.sample.count))
        #expect(throws: FirnError.self) { try appender.appendCommit(payload: Payloads.sample, deferred: false, timestampNanoseconds: 6) }
        #expect(throws: FirnError.self) {
            try appender.appendCommit(payload: Payloads.sample, deferred: true, timestampNanoseconds: 6)
        }

        var bytes = [UInt8](repeating: 0, count: 8 * 4096)
        _ = try bytes.withUnsafeMutableBytes { try io.read(into: $0, at: 3 * 4096) }
        let scan = bytes.withUnsafeBytes { LogScan.scan(region, bytes: $0, geometry: Self.geometry) }
        #expect(scan.frames.map(\.header.version) == [101, 102, 102, 103])
        #expect(scan.frames.map(\.header.kind) == [.commit, .commit, .seal, .commit])
        #expect(scan.durableVersion == 103 && scan.end == .full)
        #expect(LogAppender.resume(io: io, region: region, geometry: Self.geometry, scan: scan, acceptOpenGroup: true) == nil)
    }

    @Test func resumeRefusesWhereAFrameOfThisEpochMayFollow() {
        var image = RegionImage()
        image.add(version: 41, payload: Payloads.sample)
        image.add(version: 42, deferred: true, payload: Payloads.sample)
        let scan = image.scan()
        let io = MemoryIO()
        // An open group: continued when the opener accepts it, else a new region.
        #expect(LogAppender.resume(io: io, region: Self.region, geometry: Self.geometry, scan: scan, acceptOpenGroup: true) != nil)
        #expect(LogAppender.resume(io: io, region: Self.region, geometry: Self.geometry, scan: scan, acceptOpenGroup: false) == nil)
        var torn = image
        torn.add(version: 43, payload: Payloads.sample) { $0.payloadChecksum ^= 1 }
        #expect(LogAppender.resume(io: io, region: Self.region, geometry: Self.geometry, scan: torn.scan(), acceptOpenGroup: true) == nil)
    }
}

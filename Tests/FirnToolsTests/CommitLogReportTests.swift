import Foundation
import Testing
import FirnTools
@testable import FirnCore
import FirnTestSupport

/// `firn info` and `firn verify` report the commit log (FORMAT.md 8.2) of
/// files written with `commitLogPages`, run as the built binary: the
/// region, the frames (commits, deferred ones, seals), the newest and
/// durable versions, where and why the scan stopped, which version a first
/// opener takes against the published one; `verify` applies every frame
/// and names one that cannot be applied by its page and version (exit 65),
/// and takes a torn end after the durable version for what a crash leaves.
///
/// `verify` and `info` report the log with one summary: the same keys and
/// values in both JSON `log` objects.
///
/// About 2.5 s (9 tests, 21 cases). Mutations it caught, each tried once:
/// `Store.inspectLog` not applying frames (4 tests fail); `Verifier` not
/// adding the unapplied frame's finding (3); no count check (1); a torn end
/// as a finding instead of a note (1); the first opener's version taken
/// from the slots alone, ignoring the log's durable version (1); `verify`
/// without the fallback to the checkpoint (3: no report, only the error).
@Suite struct CommitLogReportTests {
    struct Written {
        var path: String
        /// The checkpoint's version: the region's epoch.
        var epoch: UInt64
        var region: (start: UInt64, pages: UInt64)
        var durable: UInt64
        var newest: UInt64
        /// Every frame, as the log holds it.
        var frames: [LogInspection.Frame]
        /// The store that wrote them, still open (`holding`): its lock
        /// file publishes the open group while it holds it.
        var holder: Store?
    }

    /// A checkpoint, then two durable commits, two deferred ones sealed by
    /// `sync()`, and an open group of two deferred commits. The store is
    /// closed with the group open — nobody holds the lock file then, so an
    /// opener checks the file (FORMAT.md 11) — unless `holding`: then its
    /// frames are written and it stays open, so the lock file publishes the
    /// open group's last version to other processes.
    static func write(_ dir: TemporaryDirectory, holding: Bool = false) throws -> Written {
        let path = dir.path + "/log.firn"
        let store = try Store.open(path, options: .commitLog(pages: 16))
        defer { if !holding { store.close() } }
        try store.write { txn in try txn.tree("t")?.put([0], [0]) }
        let epoch = try store.currentVersion
        for n in 1...2 { try store.write { txn in try txn.tree("t")?.put([UInt8(n)], [UInt8(n)]) } }
        func deferred(_ n: UInt8) throws {
            let txn = try store.beginWriteBlocking()
            try txn.tree("t")?.put([n], [n])
            try txn.commit(durability: .deferred)
        }
        try deferred(3)
        try deferred(4)
        let durable = try store.sync()
        try deferred(5)
        try deferred(6)
        // What this store keeps in memory goes to the file before the
        // in-process inspection reads it (a reader never writes them).
        try store.writeUnwrittenFrames()
        let record = try #require(try store.readSlots().record(version: epoch))
        let log = try #require(try store.inspectLog(of: record))
        #expect(log.newestVersion == durable + 2 && log.durableVersion == durable, "\(log)")
        return Written(path: path, epoch: epoch, region: (log.startPage, log.pageCount), durable: durable,
                       newest: try store.currentVersion, frames: log.frames, holder: holding ? store : nil)
    }

    static func info(_ path: String) throws -> Info.Report {
        let run = try FirnRun.run(["info", path, "--json"], timeout: 30)
        #expect(run.status == 0, "\(run.stderr)")
        return try run.json(Info.Report.self)
    }

    static func verify(_ path: String) throws -> (run: FirnRun, report: Verify.Report?) {
        let run = try FirnRun.run(["verify", path, "--json"], timeout: 30)
        return (run, try? run.json(Verify.Report.self))
    }

    @Test func infoReportsTheFramesTheirVersionsAndWhichOneEachOpenerTakes() throws {
        let dir = try TemporaryDirectory()
        let written = try Self.write(dir, holding: true)
        #expect(written.epoch == 2 && written.durable == 6 && written.newest == 8)

        // The lock file, held by the writer, publishes the open group's last version.
        var report = try Self.info(written.path)
        #expect(report.formatVersion == 3)
        #expect(report.currentVersion == written.newest && report.durableVersion == written.durable)
        var log = try #require(report.log, "info reports no log")
        #expect(log.epoch == written.epoch && log.firstPage == written.region.start && log.pages == written.region.pages)
        #expect(log.bytes == written.region.pages * 4096)
        #expect(log.commitFrames == 6 && log.deferredFrames == 4 && log.sealFrames == 1, "\(log)")
        #expect(log.newestVersion == written.newest && log.durableVersion == written.durable)
        #expect(log.end == .blank && log.endDetail == nil)
        // Two page-ending commits, a page of the sealed group, the open group in a fourth page.
        let last = try #require(written.frames.last)
        #expect(log.endOffset == last.offset + last.spanBytes && log.usedBytes == log.endOffset)
        #expect(log.endOffset > 3 * 4096 && log.endOffset < 4 * 4096, "\(log)")
        #expect(log.endPage == written.region.start + 3)
        #expect(log.freeBytes == log.bytes - log.usedBytes)
        #expect(log.firstOpenerVersion == written.durable && log.publishedVersion == written.newest)
        #expect(log.unappliedVersion == nil)
        // The checkpoint's slot is the current version's record; the time is the frame's.
        #expect(report.slots.contains { $0.version == written.epoch && $0.current }, "\(report.slots)")
        let newestFrame = try #require(written.frames.last { $0.version == written.newest })
        #expect(report.currentTime == Units.iso8601(nanoseconds: newestFrame.timestampNanoseconds))

        let text = try FirnRun.run(["info", written.path], timeout: 30)
        #expect(text.status == 0, "\(text.stderr)")
        let lastPage = written.region.start + written.region.pages - 1
        for line in [
            "  log       epoch 2: pages \(written.region.start)…\(lastPage) (16 pages, 64.0 KiB)",
            "  frames    6 commit(s) (4 deferred), 1 seal(s): newest 8, durable 6",
            "  log end   blank at region byte \(log.endOffset) (page \(written.region.start + 3));",
            "  opens at  6 for a first opener (the log's durable version); 8 as published in the lock file",
            "(current: the checkpoint; version 8 is a frame of its log)",
        ] {
            #expect(text.stdout.contains(line), "missing \"\(line)\" in:\n\(text.stdout)")
        }

        // `verify` checks the published version, every frame applied.
        let verified = try Self.verify(written.path)
        #expect(verified.run.status == 0, "\(verified.run.stdout)\(verified.run.stderr)")
        let verifiedLog = try #require(verified.report?.verify.log)
        #expect(verified.report?.verify.version == written.newest && verified.report?.unreadableVersion == nil)
        #expect(verifiedLog.appliedVersion == written.newest && verifiedLog.commitFrames == 6 && verifiedLog.sealFrames == 1)
        #expect(verifiedLog.end == .blank && verifiedLog.notes == [], "\(verifiedLog)")

        // Nobody has the database open and the lock file is gone (a reboot):
        // the next opener is a first opener, and takes the durable version.
        written.holder?.close()
        try FileManager.default.removeItem(atPath: written.path + ".lock")
        report = try Self.info(written.path)
        log = try #require(report.log)
        #expect(report.currentVersion == written.durable && report.durableVersion == written.durable, "\(report)")
        #expect(log.firstOpenerVersion == written.durable && log.publishedVersion == nil)
        #expect(log.newestVersion == written.newest, "the open group's frames are still in the region")
        let reverified = try Self.verify(written.path)
        #expect(reverified.run.status == 0, "\(reverified.run.stdout)\(reverified.run.stderr)")
        #expect(reverified.report?.verify.version == written.durable)
        #expect(reverified.report?.verify.log?.notes?.contains { $0.contains("follow version \(written.durable)") } == true,
                "\(String(describing: reverified.report?.verify.log))")
    }

    @Test func aTornLastFrameEndsTheLogAndVerifyTakesItForWhatACrashLeaves() throws {
        let dir = try TemporaryDirectory()
        let written = try Self.write(dir)
        // The open group's last frame, torn: a byte of its payload changed.
        let last = try #require(written.frames.last)
        #expect(last.version == written.newest && last.deferred)
        var file = try FileSurgery(written.path)
        file.bytes[Int(last.page) * 4096 + Int(last.offset % 4096) + LogFrameHeader.size] ^= 0x10
        try file.save()
        try FileManager.default.removeItem(atPath: written.path + ".lock")

        let report = try Self.info(written.path)
        let log = try #require(report.log)
        #expect(log.end == .torn && log.endOffset == last.offset && log.endPage == last.page, "\(log)")
        #expect(log.endDetail?.contains("payload checksum") == true, "\(log)")
        #expect(log.newestVersion == written.newest - 1 && log.durableVersion == written.durable)
        #expect(log.commitFrames == 5 && log.deferredFrames == 3)
        #expect(report.currentVersion == written.durable && log.firstOpenerVersion == written.durable)
        let text = try FirnRun.run(["info", written.path], timeout: 30)
        #expect(text.stdout.contains("  log end   torn at region byte \(last.offset) (page \(last.page)): payload checksum"),
                "\(text.stdout)")
        #expect(text.stdout.contains("no frame may follow: the next commit is a checkpoint"), "\(text.stdout)")

        // After the durable version: a note, not a finding.
        let verified = try Self.verify(written.path)
        #expect(verified.run.status == 0, "\(verified.run.stdout)\(verified.run.stderr)")
        let notes = verified.report?.verify.log?.notes ?? []
        #expect(notes.contains { $0.contains("ends torn at region byte \(last.offset), page \(last.page)") }, "\(notes)")
        #expect(verified.report?.verify.findings.isEmpty == true)
        let verifyText = try FirnRun.run(["verify", written.path], timeout: 30)
        #expect(verifyText.stdout.contains("log note: the scan ends torn"), "\(verifyText.stdout)")
        #expect(verifyText.stdout.contains("version \(written.durable) is clean"), "\(verifyText.stdout)")
    }

    /// The files `verify` and `info` both read to the end of their log.
    enum LogFile: String, CaseIterable, Sendable {
        /// The writer holds it, its lock file publishing an open group.
        case openGroupPublished
        /// Closed with the group open and the lock file gone: a first opener's file.
        case openGroupAfterReboot
        /// As after a reboot, the open group's last frame torn.
        case tornEnd
    }

    /// `verify` and `info` report one log summary (`LogReport`, built once
    /// from the inspection): for the same file their JSON `log` objects
    /// hold the same keys with the same values, apart from each command's
    /// own context (`notes`; `firstOpenerVersion`, `publishedVersion`).
    @Test(arguments: LogFile.allCases)
    func verifyAndInfoReportTheSameLogSummary(_ file: LogFile) throws {
        let dir = try TemporaryDirectory()
        let written = try Self.write(dir, holding: file == .openGroupPublished)
        defer { written.holder?.close() }
        if file == .tornEnd {
            let last = try #require(written.frames.last)
            var surgery = try FileSurgery(written.path)
            surgery.bytes[Int(last.page) * 4096 + Int(last.offset % 4096) + LogFrameHeader.size] ^= 0x10
            try surgery.save()
        }
        if file != .openGroupPublished { try FileManager.default.removeItem(atPath: written.path + ".lock") }

        func logObject(_ command: String) throws -> [String: Any] {
            let run = try FirnRun.run([command, written.path, "--json"], timeout: 30)
            #expect(run.status == 0, "firn \(command): \(run.stdout)\(run.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            // `verify` nests its checker's report (with the log) under `verify`.
            let holder = command == "verify" ? report["verify"] as? [String: Any] : report
            return try #require(holder?["log"] as? [String: Any], "firn \(command) reports no log: \(run.stdout)")
        }
        let verify = try logObject("verify"), info = try logObject("info")
        let verifyOnly: Set = ["notes"], infoOnly: Set = ["firstOpenerVersion", "publishedVersion"]
        #expect(verify["notes"] != nil && info["firstOpenerVersion"] != nil, "\(verify)\n\(info)")
        #expect(Set(verify.keys).isDisjoint(with: infoOnly) && Set(info.keys).isDisjoint(with: verifyOnly),
                "\(verify.keys.sorted())\n\(info.keys.sorted())")
        let summary = Set(verify.keys).subtracting(verifyOnly)
        #expect(summary == Set(info.keys).subtracting(infoOnly), "\(verify.keys.sorted())\n\(info.keys.sorted())")
        // The keys these logs all have (none is full: `endPage` too), so
        // a key missing from both fails as well.
        let always: Set = ["epoch", "firstPage", "pages", "bytes", "commitFrames", "deferredFrames", "sealFrames",
                           "newestVersion", "durableVersion", "end", "endOffset", "endPage", "usedBytes", "freeBytes",
                           "appliedVersion"]
        #expect(summary.isSuperset(of: always), "missing: \(always.subtracting(summary).sorted())")
        #expect(summary.contains("endDetail") == (file == .tornEnd), "\(summary.sorted())")
        // Values compared as JSON text: JSONSerialization's numbers and
        // strings do not compare as `Any`.
        func json(_ value: Any?) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: [value ?? NSNull()], options: .sortedKeys), as: UTF8.self)
        }
        for key in summary.sorted() {
            let (verified, reported) = (try json(verify[key]), try json(info[key]))
            #expect(verified == reported, "\(key): verify \(verified), info \(reported)")
        }
    }

    /// Appends a commit frame with `operations`, chained and checksummed
    /// as a writer writes it (durable unless `deferred`), and publishes it
    /// when asked. Returns its version and first page.
    static func appendFrame(_ path: String, _ operations: [LogOperation], publish: Bool,
                            deferred: Bool = false) throws -> (version: UInt64, page: UInt64) {
        var payload = LogPayload.Builder()
        for operation in operations { payload.append(operation) }
        return try appendFrame(path, payload: payload.bytes, publish: publish, deferred: deferred)
    }

    /// A whole, chained commit frame of exactly `payload`.
    static func appendFrame(_ path: String, payload: [UInt8], publish: Bool,
                            deferred: Bool = false) throws -> (version: UInt64, page: UInt64) {
        let store = try Store.open(path, options: .commitLog(pages: 16))
        defer { store.close() }
        let record = try #require(try store.readSlots().slots.compactMap { try? $0.get() }.max { $0.version < $1.version })
        let region = try #require(record.logRegion)
        let scan = try #require(try store.log.scan(of: record))
        let appender = try #require(LogAppender.resume(io: store.io, region: region, geometry: store.geometry, scan: scan,
                                                        acceptOpenGroup: true))
        let offset = appender.nextOffset
        let version = try appender.appendCommit(payload: payload, deferred: deferred, timestampNanoseconds: 1)
        if publish { store.lockFile?.publish(version: version, durable: !deferred) }
        return (version, region.startPage + offset / UInt64(store.geometry.pageSize))
    }

    /// A frame that checks out but puts into a tree that does not exist:
    /// no reader can apply it.
    static func appendUnappliable(_ path: String, publish: Bool, deferred: Bool = false) throws -> (version: UInt64, page: UInt64) {
        try appendFrame(path, [.put(tree: "missing", key: [1], value: [1]), .count(tree: "missing", entries: 1)],
                        publish: publish, deferred: deferred)
    }

    @Test(arguments: [true, false])
    func aFrameThatCannotBeAppliedIsAFindingNamingItsPageAndVersion(_ published: Bool) throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/log.firn"
        let store = try Store.open(path, options: StoreOptions.commitLog(pages: 16))
        try store.write { txn in try txn.tree("t")?.put([0], [0]) }
        for n in 1...3 { try store.write { txn in try txn.tree("t")?.put([UInt8(n)], [UInt8(n)]) } }
        let good = try store.currentVersion
        store.close()
        let bad = try Self.appendUnappliable(path, publish: published)
        #expect(bad.version == good + 1)
        // Unpublished: only a first opener, which takes the durable frame, reads it.
        if !published { try FileManager.default.removeItem(atPath: path + ".lock") }

        let verified = try Self.verify(path)
        #expect(verified.run.status == 65, "\(verified.run.stdout)\(verified.run.stderr)")
        #expect(verified.run.isCleanFailure, "\(verified.run.stderr)")
        let report = try #require(verified.report, "no report: \(verified.run.stderr)")
        #expect(!report.clean && report.unreadableVersion == bad.version, "\(report)")
        let finding = try #require(report.verify.findings.first { $0.kind == .log }, "\(report.verify.findings)")
        #expect(finding.page == bad.page && finding.version == bad.version, "\(finding)")
        #expect(finding.message.contains("tree \"missing\", which does not exist"), "\(finding)")
        #expect(report.verify.log?.appliedVersion == good && report.verify.log?.newestVersion == bad.version)
        #expect(report.verify.log?.unappliedVersion == bad.version && report.verify.log?.unappliedPage == bad.page,
                "\(String(describing: report.verify.log))")
        // The checkpoint's pages were still checked: the only finding is the frame.
        #expect(report.verify.findings.count == 1, "\(report.verify.findings)")
        #expect(report.verify.version < good && !report.verify.trees.isEmpty)

        let text = try FirnRun.run(["verify", path], timeout: 30)
        #expect(text.status == 65)
        #expect(text.stdout.contains("FINDING: page \(bad.page), version \(bad.version): log: commit log frame checks out but cannot be applied"),
                "\(text.stdout)")
        #expect(text.stdout.contains("version \(bad.version) cannot be read"), "\(text.stdout)")
        #expect(text.stderr.contains("page \(bad.page)") && text.stderr.contains("version \(bad.version)"), "\(text.stderr)")

        // `info` cannot read the version either: one line naming the frame.
        let info = try FirnRun.run(["info", path], timeout: 30)
        #expect(info.status == 65 && info.isCleanFailure, "\(info.stdout)\(info.stderr)")
        #expect(info.stderr.contains("page \(bad.page)") && info.stderr.contains("version \(bad.version)"), "\(info.stderr)")
    }

    /// FORMAT.md 8.2: operations that break its rules in a frame that checks
    /// out (whole, chained, payload checksum holding) are a defect (65) for
    /// every reader, never a damaged end that shows the version before.
    @Test(arguments: ["operation before any tree", "empty tree name", "tree name not UTF-8", "key over the limit"])
    func aFrameWhoseOperationsBreakTheRulesIsADefect(_ kind: String) throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/log.firn"
        let store = try Store.open(path, options: StoreOptions.commitLog(pages: 16))
        try store.write { txn in try txn.tree("t")?.put([0], [0]) }
        try store.write { txn in try txn.tree("t")?.put([1], [1]) }
        let good = try store.currentVersion
        let maxKey = store.geometry.maxKeyLength
        store.close()
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8)] }
        // Tags (FORMAT.md 8.2): 1 tree, 2 put (key u16, value u32).
        let put: [UInt8] = [2] + le16(1) + [7] + [1, 0, 0, 0] + [7]
        let payload: [UInt8]
        switch kind {
        case "operation before any tree": payload = put
        case "empty tree name": payload = [1] + le16(0) + put
        case "tree name not UTF-8": payload = [1] + le16(2) + [0xFF, 0xFE] + put
        default: payload = [1] + le16(1) + Array("t".utf8) + [2] + le16(maxKey + 1) + [UInt8](repeating: 7, count: maxKey + 1) + [1, 0, 0, 0, 7]
        }
        let bad = try Self.appendFrame(path, payload: payload, publish: false)
        #expect(bad.version == good + 1)
        try FileManager.default.removeItem(atPath: path + ".lock")
        let verify = try FirnRun.run(["verify", path], timeout: 30)
        #expect(verify.status == 65 && verify.isCleanFailure, "\(kind): \(verify.stdout)\(verify.stderr)")
        #expect(verify.stdout.contains("FINDING: page \(bad.page), version \(bad.version): log:"), "\(kind): \(verify.stdout)")
        for command in [["dump", "--entries"], ["info"]] {
            let run = try FirnRun.run([command[0], path] + command.dropFirst(), timeout: 30)
            #expect(run.status == 65 && run.isCleanFailure, "\(kind): \(command): \(run.status) \(run.stdout)\(run.stderr)")
            #expect(run.stderr.contains("version \(bad.version)"), "\(kind): \(command): \(run.stderr)")
        }
    }

    @Test func aFramePastTheCurrentVersionThatCannotBeAppliedIsStillAFinding() throws {
        let dir = try TemporaryDirectory()
        let written = try Self.write(dir)
        // A deferred frame nobody published, after the open group.
        let bad = try Self.appendUnappliable(written.path, publish: false, deferred: true)
        #expect(bad.version == written.newest + 1)
        let verified = try Self.verify(written.path)
        #expect(verified.run.status == 65, "\(verified.run.stdout)\(verified.run.stderr)")
        let report = try #require(verified.report, "no report: \(verified.run.stderr)")
        let finding = try #require(report.verify.findings.first { $0.kind == .log }, "\(report.verify.findings)")
        #expect(finding.page == bad.page && finding.version == bad.version, "\(finding)")
    }

    @Test func aFrameWhoseCountDisagreesWithItsTreeIsAFindingNamingItsPage() throws {
        let dir = try TemporaryDirectory()
        let written = try Self.write(dir)
        // After the open group, a frame that puts a new key into "t" (then
        // 8 entries: 0…7) but says it holds 9. It applies: readers take
        // counts from frames without counting.
        let bad = try Self.appendFrame(written.path, [.put(tree: "t", key: [7], value: [7]), .count(tree: "t", entries: 9)],
                                       publish: true)
        #expect(bad.version == written.newest + 1)
        let verified = try Self.verify(written.path)
        #expect(verified.run.status == 65, "\(verified.run.stdout)\(verified.run.stderr)")
        let report = try #require(verified.report, "no report: \(verified.run.stderr)")
        #expect(report.unreadableVersion == nil && report.verify.version == bad.version)
        let finding = try #require(report.verify.findings.first, "\(report.verify.findings)")
        #expect(finding.kind == .count && finding.tree == "t" && finding.page == bad.page && finding.version == bad.version,
                "\(finding)")
        #expect(finding.expected?.hasPrefix("8 entries") == true && finding.found == "9", "\(finding)")
    }

    /// `firn versions` dates a version between checkpoints by its frame
    /// (the checkpoint's record is older).
    @Test func versionsDatesEachFrameVersionByItsFrame() throws {
        let dir = try TemporaryDirectory()
        let written = try Self.write(dir, holding: true)
        defer { written.holder?.close() }
        let run = try FirnRun.run(["versions", written.path, "--json"], timeout: 30)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let versions = report["versions"] as? [[String: Any]] ?? []
        let current = try #require(versions.first { $0["version"] as? Int == Int(written.newest) })
        let frame = try #require(written.frames.last { $0.kind == .commit && $0.version == written.newest })
        #expect(current["time"] as? String == Units.iso8601(nanoseconds: frame.timestampNanoseconds), "\(current)")
    }

    /// Hostile region fields in a format 3 record fail the record's own
    /// checks (FORMAT.md 2): the tools read the other slot or refuse with
    /// one line, never crash.
    @Test(arguments: [
        (UInt64(0), UInt32(16)), (1, 16), (UInt64.max, 16), (UInt64.max - 3, 16), (2, UInt32.max),
        (2, 0), (9_999, 1),
    ] as [(UInt64, UInt32)])
    func hostileRegionFieldsNeverCrashInfoOrVerify(_ start: UInt64, _ pages: UInt32) throws {
        let dir = try TemporaryDirectory()
        let written = try Self.write(dir)
        try FileManager.default.removeItem(atPath: written.path + ".lock")
        var file = try FileSurgery(written.path)
        let slot = file.slotOffset
        #expect(file.u32(slot + 8) == 3, "the current record is the checkpoint's, format 3")
        file.put64(start, slot + 108)
        file.put32(pages, slot + 116)
        let crc = file.bytes.withUnsafeBytes { all in
            CRC32C.checksum(UnsafeRawBufferPointer(rebasing: all[slot..<slot + 124]))
        }
        file.put32(crc, slot + 124)
        try file.save()
        for command in [["info"], ["info", "--json"], ["verify"], ["verify", "--json"]] {
            let run = try FirnRun.run([command[0], written.path] + command.dropFirst(), timeout: 30)
            #expect(run.isCleanFailure && [0, 65].contains(run.status),
                    "firn \(command.joined(separator: " ")) with region \(start)+\(pages): \(run.status) \(run.stderr)")
        }
        // `verify` names the record: a defect, whatever else opens.
        let verify = try FirnRun.run(["verify", written.path], timeout: 30)
        #expect(verify.status == 65 && (verify.stdout + verify.stderr).contains("log region"), "\(verify.stdout)\(verify.stderr)")
    }
}

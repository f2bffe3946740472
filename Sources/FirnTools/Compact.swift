import FirnCore
#if canImport(Glibc)
import Glibc
#endif

/// `firn compact`: a packed copy of a version (no free or retired pages).
/// With an output, online: the version is pinned (kind `compact`) while
/// others keep working. In place: only with the database held exclusively,
/// through a temporary file in the same directory, fsync, verify, atomic
/// rename, directory fsync. Memory does not grow with the file (the packed
/// writer streams; the verifier keeps two bits per page).
package enum Compact {
    package struct Options: Sendable {
        package var path: String
        package var output: String?
        package var version: UInt64?
        /// Compact only when more than this share of the file would be freed.
        package var ifFreeOverPercent: Double?
        package var dryRun = false
        package var force = false
        /// How long to keep asking for exclusivity (in place) or the writer lock.
        package var lockTimeout: Double?
        package init(path: String) { self.path = path }
    }

    /// Why nothing was compacted.
    package enum Skip: Sendable, Equatable {
        /// `reclaimablePercent` is not over `--if-free-over`'s percent.
        case notOver(percent: Double)
        case dryRun
    }

    package struct Report: Codable, Sendable {
        package var path: String
        package var output: String
        package var inPlace: Bool
        package var dryRun: Bool
        /// False when `--if-free-over` or `--dry-run` skipped the work.
        package var compacted: Bool
        /// Then, why (the CLI words it as the JSON's `reason`).
        package var skipped: Skip? = nil
        package var version: UInt64
        package var beforeBytes: UInt64
        /// The packed size (an estimate from the live pages for a dry run or a skip).
        package var afterBytes: UInt64
        package var reclaimablePercent: Double
        package var seconds: Double

        enum CodingKeys: String, CodingKey {
            case path, output, inPlace, dryRun, compacted, version, beforeBytes, afterBytes, reclaimablePercent, seconds
        }
    }

    package static func run(_ options: Options, progress: ProgressHandler? = nil) throws -> Report {
        if let output = options.output, output == options.path {
            throw ToolError.usage("-o names the database itself; leave -o out to compact in place")
        }
        return options.output == nil ? try inPlace(options, progress: progress) : try copy(options, progress: progress)
    }

    private static func estimate(_ snapshot: Snapshot, store: Store) throws(FirnError) -> (before: UInt64, after: UInt64, percent: Double) {
        // An older version (pinned elsewhere, read through the history or
        // an epoch entry) has no commit record of its own: the file's space
        // is accounted by the current version's.
        let current = snapshot.info.commitRecord == nil ? try store.snapshot(kind: .compact, label: "firn compact") : nil
        defer { current?.close() }
        let usage = try (current ?? snapshot).spaceUsage(pinnedVersions: [])
        let after = usage.livePages * UInt64(usage.pageSize)
        let before = usage.fileBytes
        let percent = before > 0 ? Double(before - min(before, after)) * 100 / Double(before) : 0
        return (before, after, (percent * 10).rounded() / 10)
    }

    /// Skips when `--if-free-over` is not met or for a dry run; the report then.
    private static func skipReport(_ options: Options, version: UInt64, estimate e: (before: UInt64, after: UInt64, percent: Double),
                                   output: String) -> Report? {
        var skip: Skip? = nil
        if let threshold = options.ifFreeOverPercent, e.percent <= threshold {
            skip = .notOver(percent: threshold)
        } else if options.dryRun {
            skip = .dryRun
        }
        guard let skip else { return nil }
        return Report(path: options.path, output: output, inPlace: options.output == nil, dryRun: options.dryRun,
                      compacted: false, skipped: skip, version: version, beforeBytes: e.before, afterBytes: e.after,
                      reclaimablePercent: e.percent, seconds: 0)
    }

    private static func copy(_ options: Options, progress: ProgressHandler?) throws -> Report {
        // The current version with the source's check left to the packing
        // pass, which reads and checks every page (`ReadAccess.deferringCheck`).
        try ReadAccess.deferringCheck(if: options.version == nil) { try copy(options, progress: progress, defersCheck: $0) }
    }

    private static func copy(_ options: Options, progress: ProgressHandler?, defersCheck: Bool) throws -> Report {
        let started = monotonicNanoseconds()
        guard let outputPath = options.output else { throw ToolError.usage("compact: no output") }
        let access = try ReadAccess.open(options.path, version: options.version, kind: .compact, label: "firn compact",
                                         defersCheck: defersCheck)
        defer { access.close() }
        let e = try estimate(access.snapshot, store: access.store)
        if let skip = skipReport(options, version: access.snapshot.version, estimate: e, output: outputPath) {
            if access.store.openCheck.checkDeferred { throw ReadAccess.NeedsOpenCheck() }
            return skip
        }
        let output = try OutputFile(destination: outputPath, replace: options.force)
        defer { output.discard() }
        // --force may replace a database others have open: hold it exclusively.
        let guardLock = options.force ? try LockFile.open(databasePath: outputPath) : nil
        defer { guardLock?.close() }
        try guardLock?.tryExclusiveSession()
        let (summary, prechecked) = try writePacked(access.snapshot, into: output, progress: progress)
        // Every page of the version checked out: the newest record passes
        // the check it skipped, and is published as a first opener would.
        try access.store.acceptDeferredCheck()
        _ = try Verify.verifyFile(output.temporaryPath, shownAs: outputPath, prechecked: prechecked)
        try output.commit()
        try guardLock?.didReplaceDataFile(version: summary.version)
        return Report(path: options.path, output: outputPath, inPlace: false, dryRun: false, compacted: true,
                      version: summary.version, beforeBytes: e.before, afterBytes: summary.bytes, reclaimablePercent: e.percent,
                      seconds: elapsedSeconds(since: started))
    }

    /// Writes the packed image and syncs it; returns it with the subtrees
    /// checked while it was written, for the verification of the copy.
    private static func writePacked(
        _ snapshot: Snapshot, into output: OutputFile, progress: ProgressHandler?
    ) throws -> (PackedImageWriter.Summary, [PageRef: PrecheckedSubtree]) {
        let plain = try POSIXFile(path: output.temporaryPath, writable: true)
        // Written by another thread as the pages are built, bypassing the
        // page cache where the file system allows (the copy is checked as
        // it is written, not read back), so the sync finds little left.
        let behind = WriteBehindFile(plain, direct: true, buffers: WriteBehindFile.keptBufferCount)
        let file: any FileIO = behind ?? plain
        defer { file.close() }
        let checker = behind.flatMap { SubtreeChecker(snapshot: snapshot, output: $0) }
        let total = snapshot.info.logicalPageCount
        let summary: PackedImageWriter.Summary
        do {
            summary = try PackedImageWriter.write(snapshot, to: file, observer: checker) { pages in
                if pages % 256 == 0 { progress?(ToolProgress(phase: .writing, done: pages, total: total, unit: .pages)) }
            }
        } catch {
            checker?.cancel()
            throw error
        }
        let prechecked = checker?.finish() ?? [:]
        try file.sync()
        return (summary, prechecked)
    }

    private static func inPlace(_ options: Options, progress: ProgressHandler?) throws -> Report {
        let started = monotonicNanoseconds()
        if options.version != nil {
            throw ToolError.usage("--version needs -o: compacting in place keeps the current version")
        }
        let store = try DatabaseInput.openWritable(options.path, create: false, lockTimeout: options.lockTimeout)
        defer { store.close() }
        guard let lock = store.lockFile else { throw ToolError.usage("\(options.path): no lock file") }
        // Exclusivity, retried until the lock timeout (75 naming the holders otherwise).
        let deadline = monotonicDeadline(afterSeconds: options.lockTimeout ?? 0)
        while true {
            do {
                try lock.tryExclusiveSession()
                break
            } catch {
                if case .busy = error, monotonicNanoseconds() < deadline {
                    usleep(50_000)
                    continue
                }
                throw error
            }
        }
        defer { lock.releaseExclusiveSession() }
        let lease = try lock.lockWriter(timeout: .nanoseconds(timeoutNanoseconds(seconds: options.lockTimeout ?? 0)))
        defer { lock.unlockWriter(lease) }
        let snapshot = try store.snapshot(kind: .compact, label: "firn compact")
        defer { snapshot.close() }
        let e = try estimate(snapshot, store: store)
        if let skip = skipReport(options, version: snapshot.version, estimate: e, output: options.path) { return skip }
        let directory = OutputFile.directory(of: options.path)
        let available = try DiskSpace.available(at: directory)
        // The packed image plus a margin for the file system's own needs.
        let needed = e.after + e.after / 20 + 1 << 20
        if available < needed {
            throw ToolError.insufficientSpace(path: options.path, directory: directory, availableBytes: available, neededBytes: needed)
        }
        let output = try OutputFile(destination: options.path, replace: true)
        defer { output.discard() }
        let (summary, prechecked) = try writePacked(snapshot, into: output, progress: progress)
        _ = try Verify.verifyFile(output.temporaryPath, shownAs: options.path, prechecked: prechecked)
        snapshot.close()
        // Still exclusive: nobody can open the old file between the rename
        // and the new identity being recorded (openers prove their
        // descriptor against the path once they hold a session).
        try output.commit()
        try lock.didReplaceDataFile(version: summary.version)
        return Report(path: options.path, output: options.path, inPlace: true, dryRun: false, compacted: true,
                      version: summary.version, beforeBytes: e.before, afterBytes: summary.bytes, reclaimablePercent: e.percent,
                      seconds: elapsedSeconds(since: started))
    }
}

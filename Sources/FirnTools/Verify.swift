import FirnCore
/// `firn verify`: proves a readable version is intact (see `Verifier`),
/// plus the lock file's sanity. Runs against a live database without
/// blocking its writers: it pins what it checks.
package enum Verify {
    package struct Options: Sendable {
        package var path: String
        package var version: UInt64?
        package var quick = false
        package var maxErrors = 100
        package init(path: String) { self.path = path }
    }

    package struct LockFileState: Codable, Sendable, Equatable {
        package var present: Bool
        /// False when it exists but could not be used (not writable, not a Firn lock file).
        package var usable: Bool
        package var sessions: Int
        package var pins: Int
        package var stalePins: Int
        package var note: String?
    }

    package struct Report: Codable, Sendable {
        package var path: String
        package var clean: Bool
        /// The version asked for (by default the current one) when no reader
        /// can read it because a commit frame of its checkpoint's log checks
        /// out but cannot be applied (FORMAT.md 8.2): `verify` then checked
        /// that checkpoint's pages and its log, `verify.version` is the
        /// checkpoint's, and a `log` finding names the frame.
        package var unreadableVersion: UInt64?
        package var verify: VerifyReport
        package var lockFile: LockFileState
        package var seconds: Double
        package var pinned: Bool
        package var note: String?
    }

    package static func run(_ options: Options, progress: ProgressHandler? = nil) throws(FirnError) -> Report {
        let started = monotonicNanoseconds()
        // First with the open-time check's walk left to the verifier's (one
        // read of each page instead of two); when that walk finds anything,
        // again as any open chooses the current version, and that is what
        // is reported (the check may reject the newest record).
        // An error opening that way is met again below, where the
        // unreadable-log fallback handles it.
        if options.version == nil,
           let access = try? ReadAccess.open(options.path, label: "firn verify", forVerify: true, defersCheck: true) {
            defer { access.close() }
            let deferred = access.store.openCheck.checkDeferred
            let outcome = try check(access, unreadable: nil, options: options, progress: progress)
            if !deferred || outcome.pageWalkClean {
                if deferred { try access.store.acceptDeferredCheck() }
                return outcome.report(started: started)
            }
        }
        let access: ReadAccess
        var unreadable: UInt64?
        do {
            access = try ReadAccess.open(options.path, version: options.version, label: "firn verify", forVerify: true)
        } catch {
            // Anything else, or a second failure: the first error stands.
            guard let checkpoint = (try? ReadAccess.openCheckpointOfUnreadableLog(
                options.path, version: options.version, label: "firn verify")) ?? nil else { throw error }
            access = checkpoint.access
            unreadable = checkpoint.version
        }
        defer { access.close() }
        return try check(access, unreadable: unreadable, options: options, progress: progress).report(started: started)
    }

    /// What one walk found, before the report is timed.
    private struct Outcome {
        var path: String
        var verify: VerifyReport
        /// The verifier's walk (pages, trees, slots, log) found nothing;
        /// the object layer is not part of the open-time check.
        var pageWalkClean: Bool
        var unreadable: UInt64?
        var lockFile: LockFileState
        var pinned: Bool
        var note: String?

        func report(started: UInt64) -> Report {
            Report(path: path, clean: verify.isClean && unreadable == nil, unreadableVersion: unreadable,
                   verify: verify, lockFile: lockFile, seconds: elapsedSeconds(since: started), pinned: pinned, note: note)
        }
    }

    private static func check(_ access: ReadAccess, unreadable: UInt64?, options: Options,
                              progress: ProgressHandler?) throws(FirnError) -> Outcome {
        var verifierOptions = Verifier.Options()
        verifierOptions.quick = options.quick
        verifierOptions.maxErrors = max(1, options.maxErrors)
        // The file's pages bound the pages the walk reads (it reads each reachable one once).
        let total = access.snapshot.info.logicalPageCount
        progress?(ToolProgress(phase: .verifying, done: 0, total: total, unit: .pages))
        var report = Verifier.verify(access.snapshot, slots: try access.store.readSlots(), options: verifierOptions,
                                     pagesRead: progress.map { progress in
                                         { pages in progress(ToolProgress(phase: .verifying, done: pages, total: total, unit: .pages)) }
                                     })
        let pageWalkClean = report.isClean
        // The object layer, over pages the walk proved: a file that `dump
        // --objects` refuses never verifies clean.
        if report.isClean && unreadable == nil, let finding = ObjectLayerCheck.firstDefect(access.snapshot, path: options.path) {
            report.findings.append(finding)
        }
        let lock = access.store.lockFile
        let own = getpidValue()
        let pins = lock?.pins().filter { $0.pid != own } ?? []
        let present = DatabaseInput.fileExists(options.path + ".lock")
        var lockState = LockFileState(
            present: present, usable: lock != nil, sessions: lock?.otherSessionHolders().count ?? 0,
            pins: pins.filter { !$0.stale }.count, stalePins: pins.filter(\.stale).count, note: nil)
        if present && lock == nil {
            lockState.note = "the lock file is not usable (not writable, or not a Firn lock file); "
                + "the next writer that finds nobody holding it reinitializes it"
        } else if lockState.stalePins > 0 {
            lockState.note = "\(lockState.stalePins) stale pin(s) of exited processes; `firn pins --clear-stale` frees them"
        }
        return Outcome(path: options.path, verify: report, pageWalkClean: pageWalkClean, unreadable: unreadable,
                       lockFile: lockState, pinned: access.pinned, note: access.note)
    }

    /// Verifies a file nobody else has open (a fresh compaction or import,
    /// written and synced by this process under a temporary name): the
    /// verifier's walk reads each page once, without the open-time check's
    /// walk before it.
    /// `prechecked`: subtrees of the file checked as it was written
    /// (`SubtreeChecker`), which the walk takes where their parents reference them.
    static func verifyFile(_ path: String, shownAs: String,
                           prechecked: [PageRef: PrecheckedSubtree] = [:]) throws -> VerifyReport {
        let store = try DatabaseInput.openReadOnly(path, forVerify: true, ownOutput: true)
        defer { store.close() }
        let snapshot = try store.snapshot(kind: .tool, label: "firn verify")
        defer { snapshot.close() }
        var report = Verifier.verify(snapshot, slots: try store.readSlots(), prechecked: prechecked)
        if report.isClean, let finding = ObjectLayerCheck.firstDefect(snapshot, path: shownAs) { report.findings.append(finding) }
        if let first = report.findings.first {
            throw ToolError.verificationFailed(path: shownAs, findings: report.findings.count, first: first.description)
        }
        return report
    }
}

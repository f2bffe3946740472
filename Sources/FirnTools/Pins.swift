import FirnCore
/// `firn pins` (alias `readers`): the reader table — who pins which
/// version, why, since when, how far behind, and what each pin costs in
/// file space — with thresholds for cron alerts.
package enum Pins {
    package struct Options: Sendable {
        package var path: String
        package var clearStale = false
        package init(path: String) { self.path = path }
    }

    /// The limits a cron alert sets on live pins (`--max-lag`, `--max-age`,
    /// `--max-retained`); nil sets none.
    package struct Thresholds: Sendable {
        package var maxLag: UInt64?
        package var maxAgeSeconds: Double?
        package var maxRetainedBytes: UInt64?
        /// Also hold the stale pins (of exited processes) to the limits.
        /// Off by default: a stale slot holds nothing the next writer does
        /// not reclaim, so an alert on it would page someone for nothing.
        package var includeStale = false
        package init() {}
    }

    /// A live pin past one of the thresholds, and that threshold.
    package struct Violation: Sendable, Equatable {
        package enum Threshold: Sendable, Equatable {
            case lag(UInt64)
            case ageSeconds(Double)
            case retainedBytes(UInt64)
        }
        package var pin: Pin
        package var threshold: Threshold
    }

    package struct Pin: Codable, Sendable, Equatable {
        package var slot: Int
        package var version: UInt64
        package var pid: Int32
        package var threadID: Int64
        package var kind: RecordedPinKind
        package var label: String
        /// Commits behind the latest version.
        package var lag: UInt64
        package var since: String
        package var sinceSeconds: Double
        package var frozenObjects: UInt64
        /// Bytes freed when this pin alone goes (pages only its version sees).
        package var retainedBytes: UInt64
        /// What it will retain alone once the next checkpoint has run:
        /// `retainedBytes` plus the pages of the checkpoint the log's
        /// frames stand on that the checkpoint replaces and only this pin
        /// sees (on the commit log, a pin on a frame holds nothing until
        /// then). Equal to `retainedBytes` when the latest version is a
        /// checkpoint or a page commit.
        package var retainedAfterCheckpointBytes: UInt64
        package var stale: Bool
    }

    package struct Report: Codable, Sendable {
        package var path: String
        package var latestVersion: UInt64
        /// False when there is no usable lock file: no process has the database open.
        package var lockFile: Bool
        package var pins: [Pin]
        /// Pins held by several processes share these bytes (not in any `retainedBytes`).
        package var sharedBytes: UInt64
        package var clearedStale: [Pin]
        /// When the latest version is a commit in the commit log: the
        /// checkpoint that log builds on. Commits since then replace no
        /// pages, so a pin on one of them holds none until a checkpoint.
        package var checkpointVersion: UInt64?
        /// Then, what the next checkpoint replaces and who will hold it.
        package var nextCheckpoint: NextCheckpoint?
        package var pinned: Bool
        package var note: String?
    }

    /// What the next checkpoint of the commit log replaces (at least: the
    /// pages on the paths to every key its frames change, the catalog's
    /// and space tree's paths, the log region), and how much of it live
    /// pins will hold then.
    package struct NextCheckpoint: Codable, Sendable, Equatable {
        /// The checkpoint the frames stand on, and the commit frames since.
        package var checkpoint: UInt64
        package var frames: UInt64
        package var replacedBytes: UInt64
        /// Of `replacedBytes`, the log region's.
        package var regionBytes: UInt64
        /// Of `replacedBytes`, what a live pin will see (kept until the
        /// pins go); the rest is reusable after the checkpoint after it.
        package var heldByPinsBytes: UInt64
        /// Of `heldByPinsBytes`, what several pins will share.
        package var sharedBytes: UInt64

        init(_ next: SpaceUsage.NextCheckpoint, pageSize: Int) {
            let size = UInt64(pageSize)
            checkpoint = next.checkpoint
            frames = next.frames
            replacedBytes = next.replacedPages * size
            regionBytes = next.regionPages * size
            heldByPinsBytes = next.heldByPinsPages * size
            sharedBytes = next.sharedByPinsPages * size
        }
    }

    package static func run(_ options: Options) throws(FirnError) -> Report {
        let access = try ReadAccess.open(options.path, label: "firn pins")
        defer { access.close() }
        let lock = access.store.lockFile
        let latest = access.snapshot.version
        let own = getpidValue()
        var cleared: [PinRecord] = []
        if options.clearStale, let lock { cleared = lock.reclaimStalePins() }
        let records = (lock?.pins() ?? []).filter { $0.pid != own }
        let usage = try access.snapshot.spaceUsage(pinnedVersions: livePinnedVersions(lock), forecastingCheckpoint: true)
        func pin(_ r: PinRecord, retained: Bool) -> Pin {
            Pin(slot: r.slot, version: r.version, pid: r.pid, threadID: r.threadID,
                kind: RecordedPinKind(r), label: r.label,
                lag: latest >= r.version ? latest - r.version : 0,
                since: Units.iso8601(nanoseconds: r.sinceNanoseconds),
                sinceSeconds: Units.secondsSince(nanoseconds: r.sinceNanoseconds),
                frozenObjects: r.frozenObjects,
                retainedBytes: retained && !r.stale ? usage.retainedBytes(byPinAt: r.version) : 0,
                retainedAfterCheckpointBytes: retained && !r.stale ? usage.retainedBytesAfterCheckpoint(byPinAt: r.version) : 0,
                stale: r.stale)
        }
        let pins = records.map { pin($0, retained: true) }.sorted { ($0.version, $0.slot) < ($1.version, $1.slot) }
        return Report(path: options.path, latestVersion: latest, lockFile: lock != nil, pins: pins,
                      sharedBytes: usage.sharedByPinsPages * UInt64(usage.pageSize),
                      clearedStale: cleared.map { pin($0, retained: false) },
                      checkpointVersion: access.snapshot.logCheckpointVersion,
                      nextCheckpoint: usage.nextCheckpoint.map { NextCheckpoint($0, pageSize: usage.pageSize) },
                      pinned: access.pinned, note: access.note)
    }

    /// The live pins of `report` (and the stale ones, when the thresholds
    /// say so) past `thresholds`: per pin, lag, then age,
    /// then bytes retained (exit 1 for `firn pins`).
    package static func violations(_ report: Report, _ thresholds: Thresholds) -> [Violation] {
        var violations: [Violation] = []
        for pin in report.pins where !pin.stale || thresholds.includeStale {
            if let max = thresholds.maxLag, pin.lag > max {
                violations.append(Violation(pin: pin, threshold: .lag(max)))
            }
            if let max = thresholds.maxAgeSeconds, pin.sinceSeconds > max {
                violations.append(Violation(pin: pin, threshold: .ageSeconds(max)))
            }
            if let max = thresholds.maxRetainedBytes, pin.retainedBytes > max {
                violations.append(Violation(pin: pin, threshold: .retainedBytes(max)))
            }
        }
        return violations
    }

    /// Versions pinned by live processes, read without freeing stale slots
    /// (`LockFile.livePinnedVersions()` reclaims them; a read-only command
    /// leaves that to `--clear-stale` or the next writer).
    /// This process's own pin (the report's read, at the latest version)
    /// is left out: it holds nothing the reports attribute.
    static func livePinnedVersions(_ lock: LockFile?) -> [UInt64] {
        let own = getpidValue()
        return Array(Set((lock?.pins() ?? []).filter { !$0.stale && $0.pid != own }.map(\.version))).sorted()
    }
}

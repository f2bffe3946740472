import FirnCore
/// `firn growth`: the commit history kept in the file (size, live, free and
/// held-by-pins bytes per commit), how much the file grew, and who holds
/// its space now.
package enum Growth {
    package struct Options: Sendable {
        package var path: String
        package init(path: String) { self.path = path }
    }

    package struct Point: Codable, Sendable, Equatable {
        package var version: UInt64
        package var time: String
        package var timestampNanoseconds: UInt64
        package var fileBytes: UInt64
        package var liveBytes: UInt64
        package var freeBytes: UInt64
        package var heldByPinsBytes: UInt64
        package var pagesWritten: UInt64
        /// Commits between the point before and this one that the history
        /// does not date one by one: on the commit log, the frames the
        /// checkpoint applied (a point is a checkpoint or a page commit).
        /// 0 for the first point.
        package var commitsSincePrevious: UInt64
    }

    package struct Report: Codable, Sendable {
        package var path: String
        package var currentVersion: UInt64
        package var points: [Point]
        /// Bytes the file grew since `grewSinceVersion` (its last smallest size in the history).
        package var grewBytes: UInt64
        package var grewSinceVersion: UInt64?
        /// Bytes held by pins now, and the pin holding the most.
        package var pinnedBytes: UInt64
        package var topPin: Pins.Pin?
        /// Every live pin, most bytes retained first: who holds the file's
        /// space now (process, kind, label, frozen objects, bytes).
        package var pins: [Pins.Pin]
        /// When the current version is a commit in the commit log: the
        /// checkpoint that log builds on. The history records checkpoints
        /// only, and the file grows only at one.
        package var checkpointVersion: UInt64?
        /// Then, what the next checkpoint replaces and who will hold it.
        package var nextCheckpoint: Pins.NextCheckpoint?
        package var pinned: Bool
        package var note: String?
    }

    package static func run(_ options: Options) throws(FirnError) -> Report {
        let access = try ReadAccess.open(options.path, label: "firn growth")
        defer { access.close() }
        let history = try access.snapshot.history()
        // One point per recorded commit: a page commit, or a checkpoint
        // with the log's frames since the one before summarized in it.
        var points: [Point] = []
        for record in history {
            let since = points.last.map { record.version > $0.version ? record.version - $0.version - 1 : 0 } ?? 0
            points.append(Point(version: record.version, time: Units.iso8601(nanoseconds: record.timestampNanoseconds),
                                timestampNanoseconds: record.timestampNanoseconds, fileBytes: record.fileBytes,
                                liveBytes: record.liveBytes, freeBytes: record.freeBytes,
                                heldByPinsBytes: record.heldByPinsBytes, pagesWritten: record.pagesWritten,
                                commitsSincePrevious: since))
        }
        access.close()
        var pinsOptions = Pins.Options(path: options.path)
        pinsOptions.clearStale = false
        let pins = try Pins.run(pinsOptions)
        let live = pins.pins.filter { !$0.stale }.sorted { ($1.retainedBytes, $0.version) < ($0.retainedBytes, $1.version) }
        let top = live.first
        let pinnedBytes = pins.pins.reduce(pins.sharedBytes) { $0 + $1.retainedBytes }
        var grew: UInt64 = 0
        var since: UInt64? = nil
        if let last = points.last, let smallest = points.min(by: { $0.fileBytes < $1.fileBytes })?.fileBytes {
            since = points.last(where: { $0.fileBytes == smallest })?.version
            grew = last.fileBytes - smallest
        }
        let checkpoint = access.snapshot.logCheckpointVersion
        return Report(path: options.path, currentVersion: pins.latestVersion, points: points, grewBytes: grew,
                      grewSinceVersion: since, pinnedBytes: pinnedBytes, topPin: top, pins: live,
                      checkpointVersion: checkpoint, nextCheckpoint: pins.nextCheckpoint, pinned: access.pinned,
                      note: access.note)
    }
}

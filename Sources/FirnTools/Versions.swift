import FirnCore
/// `firn versions`: every version still readable — the current one, the
/// previous commit slot, and each version a process has pinned — with its
/// time and who holds it.
package enum Versions {
    package struct Options: Sendable {
        package var path: String
        package init(path: String) { self.path = path }
    }

    package struct Holder: Codable, Sendable, Equatable {
        package var pid: Int32
        package var kind: RecordedPinKind
        package var label: String
        package var sinceSeconds: Double
    }

    /// What a version is to the file and its readers (encoded by name).
    package enum Role: String, Codable, Sendable {
        case current
        /// The newest version that survives power loss; below current while
        /// a group of deferred commits is open.
        case durable
        /// The other commit slot's.
        case previous
        case pinned
        /// A newer record in the other slot that the open-time check
        /// rejected (its commit was cut short; not readable).
        case rejected
        /// On the commit log: a commit record that made a log region.
        case checkpoint
        /// On the commit log: a commit in a checkpoint's log.
        case frame
    }

    package struct Version: Codable, Sendable, Equatable {
        package var version: UInt64
        package var time: String?
        package var roles: [Role]
        /// Commits behind the current version.
        package var lag: UInt64
        /// Whether `firn dump --version` (and every reader) can read it now:
        /// the current version, the previous slot's, a pinned one; false for
        /// a rejected record, or a pinned version of a file whose history no
        /// longer finds it (written before epoch entries, FORMAT.md 7).
        package var readable: Bool
        package var holders: [Holder]
    }

    package struct Report: Codable, Sendable {
        package var path: String
        package var currentVersion: UInt64
        /// See `Info.Report.durableVersion`.
        package var durableVersion: UInt64
        package var versions: [Version]
        package var pinned: Bool
        package var note: String?
    }

    package static func run(_ options: Options) throws(FirnError) -> Report {
        let access = try ReadAccess.open(options.path, label: "firn versions")
        defer { access.close() }
        let slots = try access.store.readSlots()
        let history = try access.snapshot.history()
        var times: [UInt64: UInt64] = [:]
        for record in history { times[record.version] = record.timestampNanoseconds }
        for case let .success(record) in slots.slots { times[record.version] = record.timestampNanoseconds }
        // Versions between checkpoints were committed when their frames were.
        if let record = access.snapshot.info.commitRecord, let log = try access.store.inspectLog(of: record) {
            times.merge(log.commitTimes) { _, frame in frame }
        }
        var byVersion: [UInt64: Version] = [:]
        func entry(_ v: UInt64) -> Version {
            byVersion[v] ?? Version(
                version: v, time: times[v].map { Units.iso8601(nanoseconds: $0) }, roles: [],
                lag: access.snapshot.version >= v ? access.snapshot.version - v : 0, readable: false, holders: [])
        }
        // Current is the version read (the published one): with an open
        // group it is an unsealed record the slot check alone would reject.
        let current = access.snapshot.version
        var e = entry(current)
        e.roles.append(.current)
        byVersion[current] = e
        let durable = Info.durableVersion(store: access.store, slots: slots, current: current)
        e = entry(durable)
        e.roles.append(.durable)
        byVersion[durable] = e
        // The record the current version reads through (its own, or for a
        // frame its checkpoint's) is not the previous slot.
        let ownRecord = access.snapshot.info.commitRecord?.version
        for case let .success(record) in slots.slots
        where record.version < current && record.version != slots.rejected?.version && record.version != ownRecord {
            var e = entry(record.version)
            e.roles.append(.previous)
            byVersion[record.version] = e
        }
        if let rejected = slots.rejected, rejected.version > access.snapshot.version {
            var e = entry(rejected.version)
            e.roles.append(.rejected)
            byVersion[rejected.version] = e
        }
        let own = getpidValue()
        for pin in access.store.lockFile?.pins() ?? [] where !pin.stale && pin.pid != own {
            var e = entry(pin.version)
            if !e.roles.contains(.pinned) { e.roles.append(.pinned) }
            e.holders.append(Holder(pid: pin.pid, kind: RecordedPinKind(pin),
                                    label: pin.label, sinceSeconds: Units.secondsSince(nanoseconds: pin.sinceNanoseconds)))
            byVersion[pin.version] = e
        }
        // What each version is, and whether a reader can open it: tried as
        // `dump --version` would (a pin of this process, released at once).
        var records: [UInt64: Bool] = [:]
        for record in history { records[record.version] = false }
        for case let .success(record) in slots.slots { records[record.version] = record.hasLogRegion }
        let onLog = access.snapshot.info.commitRecord?.hasLogRegion == true || access.snapshot.logCheckpointVersion != nil
        if let ownRecord, ownRecord != current { byVersion[ownRecord] = entry(ownRecord) }
        // Commit times of the retired regions met, one scan each.
        var regionTimes: [UInt64: [UInt64: UInt64]] = [:]
        for (version, var e) in byVersion {
            if let hasRegion = records[version] {
                if hasRegion { e.roles.append(.checkpoint) }
            } else if let (end, entry) = try access.snapshot.retiredLog(holding: version) {
                e.roles.append(.frame)
                // A frame of a retired region: its time is in its frame header.
                if e.time == nil {
                    if regionTimes[end] == nil { regionTimes[end] = try access.store.retiredLogCommitTimes(entry, end: end) }
                    e.time = regionTimes[end]?[version].map { Units.iso8601(nanoseconds: $0) }
                }
            } else if onLog {
                e.roles.append(.frame)
            }
            if version == current {
                e.readable = true
            } else if !e.roles.contains(.rejected),
                      let old = try? access.store.snapshot(version: version, kind: .tool, label: "firn versions") {
                old.close()
                e.readable = true
            }
            byVersion[version] = e
        }
        return Report(path: options.path, currentVersion: access.snapshot.version, durableVersion: durable,
                      versions: byVersion.values.sorted { $0.version > $1.version },
                      pinned: access.pinned, note: access.note)
    }
}

import FirnCore
/// `firn info`: what a database file holds and where its space goes.
package enum Info {
    package struct Options: Sendable {
        package var path: String
        package init(path: String) { self.path = path }
    }

    package struct Slot: Codable, Sendable, Equatable {
        package var slot: Int
        package var valid: Bool
        /// The slot holds the record the current version is read from: its
        /// own, or for a version between checkpoints (a frame of the commit
        /// log, FORMAT.md 8.2) its checkpoint's.
        package var current: Bool
        package var version: UInt64?
        package var time: String?
        /// Why the slot is not valid, or why its valid record was rejected
        /// by the open-time check (FORMAT.md 2.1: the other slot is current).
        package var problem: String?
        /// True for an unsealed record: a deferred commit whose group has
        /// not reached its durability point (FORMAT.md 8.1). Readers on this
        /// host see it; after a power loss the file opens at its durable base.
        package var unsealed: Bool = false
    }

    package struct Tree: Codable, Sendable, Equatable {
        package var name: String
        package var entries: UInt64
        /// The depth of the checkpoint's pages of the tree (0: none).
        package var depth: Int
        package var rootPage: UInt64
        /// On the commit log, keys of the tree the frames since the
        /// checkpoint change (they have no pages until the next one);
        /// nil when no frame touched it.
        package var loggedKeys: Int?
        /// A frame dropped or created the tree anew: none of the
        /// checkpoint's pages of it show (`depth` 0).
        package var loggedReset: Bool = false
    }

    package struct Report: Codable, Sendable {
        package var path: String
        package var formatVersion: UInt32
        package var pageSize: Int
        package var currentVersion: UInt64
        package var currentTime: String
        /// The newest version that survives power loss: `currentVersion`,
        /// or lower while a group of deferred commits is open (FORMAT.md 8.1).
        package var durableVersion: UInt64
        package var slots: [Slot]
        /// Size of the file on disk.
        package var fileBytes: UInt64
        /// Pages the current version's file uses (slots included) × page size.
        package var logicalBytes: UInt64
        package var liveBytes: UInt64
        /// Free pages plus file space past the logical end: reusable now.
        package var freeBytes: UInt64
        /// Replaced pages still held because a pinned version sees them.
        package var pinnedBytes: UInt64
        /// Replaced pages no pin sees, waiting for the versions in the
        /// commit slots to move on (FORMAT.md 7, reuse rule).
        package var awaitingReclaimBytes: UInt64
        /// Of those, what the next commit that reclaims space frees (on
        /// the commit log, the next checkpoint); the rest, the one after.
        package var freedByNextCommitBytes: UInt64
        /// On the commit log while the version is a frame: what the next
        /// checkpoint replaces, and how much of it pins will hold.
        package var nextCheckpoint: Pins.NextCheckpoint?
        package var trees: [Tree]
        /// The object types of `sys.schema` with their object counts (empty
        /// for a file the SDK did not write).
        package var objectTypes: [StoredType]
        /// Why `objectTypes` could not be read (a damaged schema); the rest
        /// of the report stands.
        package var objectTypesProblem: String?
        /// The commit log of the version's checkpoint, when it made one,
        /// with which version each kind of opener takes.
        package var log: LogReport?
        package var pins: Int
        package var stalePins: Int
        package var writerPID: Int32?
        /// Whether this read was pinned (see `note`).
        package var pinned: Bool
        package var note: String?
    }

    package static func run(_ options: Options) throws(FirnError) -> Report {
        let access = try ReadAccess.open(options.path, label: "firn info")
        defer { access.close() }
        let store = access.store
        let snapshot = access.snapshot
        let slots = try store.readSlots()
        let lock = store.lockFile
        let pins = lock?.pins().filter { $0.pid != getpidValue() } ?? []
        let usage = try snapshot.spaceUsage(pinnedVersions: Pins.livePinnedVersions(lock), slots: slots,
                                            forecastingCheckpoint: true)
        var trees: [Tree] = []
        for (name, entry) in try snapshot.catalog() {
            let depth = try snapshot.tree(name)?.depth() ?? 0
            let logged = snapshot.loggedChanges(of: name)
            trees.append(Tree(name: name, entries: entry.count, depth: depth, rootPage: entry.root.page,
                              loggedKeys: logged?.keys, loggedReset: logged?.reset ?? false))
        }
        var objectTypes: [StoredType] = []
        var objectTypesProblem: String?
        do {
            objectTypes = try StoredSchema.types(snapshot, try StoredSchema.read(snapshot))
        } catch {
            objectTypesProblem = error.description
        }
        // The version read is the published one; on a live database with an
        // open group that is an unsealed record the open-time check would
        // reject after a power loss: current, and pending, not rejected.
        let current = snapshot.version
        let checkpoint = snapshot.info.commitRecord
        let inspection = try checkpoint.flatMap { (record) throws(FirnError) in try store.inspectLog(of: record) }
        let log = checkpoint.flatMap { record in inspection.map { Self.log($0, of: record, store: store, slots: slots) } }
        // A version between checkpoints was committed when its frame was.
        let currentNanoseconds = inspection?.commitTimes[current] ?? snapshot.info.timestampNanoseconds
        let slotInfo = slots.slots.enumerated().map { index, result -> Slot in
            switch result {
            case let .success(record):
                let rejection = record.version == current
                    ? nil : slots.rejected.flatMap { $0.version == record.version ? $0.description : nil }
                // A version between checkpoints reads its checkpoint's
                // record: that slot is current, as for the record's own version.
                let isCurrent = record.version == current || (log != nil && record == checkpoint)
                return Slot(slot: index, valid: true, current: isCurrent, version: record.version,
                            time: Units.iso8601(nanoseconds: record.timestampNanoseconds), problem: rejection,
                            unsealed: record.unsealed)
            case let .failure(defect):
                return Slot(slot: index, valid: false, current: false, version: nil, time: nil, problem: defect.description)
            }
        }
        return Report(
            path: options.path, formatVersion: snapshot.info.commitRecord?.format ?? CommitRecord.formatVersion,
            pageSize: store.pageSize,
            currentVersion: snapshot.version, currentTime: Units.iso8601(nanoseconds: currentNanoseconds),
            durableVersion: Self.durableVersion(store: store, slots: slots, current: snapshot.version),
            slots: slotInfo, fileBytes: usage.fileBytes, logicalBytes: usage.logicalPages * UInt64(usage.pageSize),
            liveBytes: usage.liveBytes, freeBytes: usage.freeBytes, pinnedBytes: usage.pinnedBytes,
            awaitingReclaimBytes: usage.awaitingReclaimPages * UInt64(usage.pageSize),
            freedByNextCommitBytes: usage.freedByNextCommitBytes,
            nextCheckpoint: usage.nextCheckpoint.map { Pins.NextCheckpoint($0, pageSize: usage.pageSize) }, trees: trees,
            objectTypes: objectTypes, objectTypesProblem: objectTypesProblem, log: log,
            pins: pins.filter { !$0.stale }.count, stalePins: pins.filter(\.stale).count,
            writerPID: lock?.writerPID, pinned: access.pinned, note: access.note)
    }
}

extension Info {
    /// The durable version as the lock file records it (writers and
    /// `sync()` keep it), or, without one, the version a first opener
    /// takes: what opens after a power loss. Never above the version read.
    static func durableVersion(store: Store, slots: CommitSlots, current: UInt64) -> UInt64 {
        let recorded = store.lockFile?.durableVersion ?? 0
        let durable = recorded != 0 ? recorded : (firstOpenerVersion(store: store, slots: slots) ?? current)
        return min(durable, current)
    }

    /// The version a first opener takes (FORMAT.md 2.1 and 8.2): the slots'
    /// current record, or, when it made a log region, that log's durable
    /// version. Nil when no record is valid or its region cannot be read.
    static func firstOpenerVersion(store: Store, slots: CommitSlots) -> UInt64? {
        guard let record = slots.current else { return nil }
        guard record.hasLogRegion else { return record.version }
        return (try? store.inspectLog(of: record))??.durableVersion
    }

    /// `record`'s log, read as `inspection`, with the versions openers take.
    static func log(_ inspection: LogInspection, of record: CommitRecord, store: Store, slots: CommitSlots) -> LogReport {
        var log = LogReport(inspection)
        // The first opener reads the slots' current record's log: this one,
        // unless the slots moved on.
        log.firstOpenerVersion = slots.current == record ? inspection.durableVersion
            : firstOpenerVersion(store: store, slots: slots) ?? inspection.durableVersion
        log.publishedVersion = store.lockFile.map(\.latestVersion).flatMap { $0 == 0 ? nil : $0 }
        return log
    }
}

#if canImport(Glibc)
import Glibc
#endif

func getpidValue() -> Int32 { getpid() }

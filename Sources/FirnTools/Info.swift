/// `firn info`: what a database file holds and where its space goes.
public enum Info {
    public struct Options: Sendable {
        public var path: String
        public init(path: String) { self.path = path }
    }

    public struct Slot: Codable, Sendable, Equatable {
        public var slot: Int
        public var valid: Bool
        public var current: Bool
        public var version: UInt64?
        public var time: String?
        /// Why the slot is not valid, or why its valid record was rejected
        /// by the open-time check (FORMAT.md 2.1: the other slot is current).
        public var problem: String?
        /// True for an unsealed record: a deferred commit whose group has
        /// not reached its durability point (FORMAT.md 8.1). Readers on this
        /// host see it; after a power loss the file opens at its durable base.
        public var unsealed: Bool = false
    }

    public struct Tree: Codable, Sendable, Equatable {
        public var name: String
        public var entries: UInt64
        public var depth: Int
        public var rootPage: UInt64
    }

    public struct Report: Codable, Sendable {
        public var path: String
        public var formatVersion: UInt32
        public var pageSize: Int
        public var currentVersion: UInt64
        public var currentTime: String
        /// The newest version that survives power loss: `currentVersion`,
        /// or lower while a group of deferred commits is open (FORMAT.md 8.1).
        public var durableVersion: UInt64
        public var slots: [Slot]
        /// Size of the file on disk.
        public var fileBytes: UInt64
        /// Pages the current version's file uses (slots included) × page size.
        public var logicalBytes: UInt64
        public var liveBytes: UInt64
        /// Free pages plus file space past the logical end: reusable now.
        public var freeBytes: UInt64
        /// Replaced pages still held because a pinned version sees them.
        public var pinnedBytes: UInt64
        /// Replaced pages only the previous version sees (free after the next commit).
        public var awaitingReclaimBytes: UInt64
        public var trees: [Tree]
        /// The object types of `sys.schema` with their object counts (empty
        /// for a file the SDK did not write).
        public var objectTypes: [StoredType]
        /// Why `objectTypes` could not be read (a damaged schema); the rest
        /// of the report stands.
        public var objectTypesProblem: String?
        public var pins: Int
        public var stalePins: Int
        public var writerPID: Int32?
        /// Whether this read was pinned (see `note`).
        public var pinned: Bool
        public var note: String?
    }

    public static func run(_ options: Options) throws(FirnError) -> Report {
        let access = try ReadAccess.open(options.path, label: "firn info")
        defer { access.close() }
        let store = access.store
        let snapshot = access.snapshot
        let slots = try store.readSlots()
        let lock = store.lockFile
        let pins = lock?.pins().filter { $0.pid != getpidValue() } ?? []
        let usage = try snapshot.spaceUsage(pinnedVersions: Pins.livePinnedVersions(lock))
        var trees: [Tree] = []
        for (name, entry) in try snapshot.catalog() {
            let depth = try snapshot.tree(name)?.depth() ?? 0
            trees.append(Tree(name: name, entries: entry.count, depth: depth, rootPage: entry.root.page))
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
        let slotInfo = slots.slots.enumerated().map { index, result -> Slot in
            switch result {
            case let .success(record):
                let rejection = record.version == current
                    ? nil : slots.rejected.flatMap { $0.version == record.version ? $0.description : nil }
                return Slot(slot: index, valid: true, current: record.version == current, version: record.version,
                            time: Units.iso8601(nanoseconds: record.timestampNanoseconds), problem: rejection,
                            unsealed: record.unsealed)
            case let .failure(defect):
                return Slot(slot: index, valid: false, current: false, version: nil, time: nil, problem: defect.description)
            }
        }
        return Report(
            path: options.path, formatVersion: snapshot.info.commitRecord?.format ?? CommitRecord.formatVersion,
            pageSize: store.pageSize,
            currentVersion: snapshot.version, currentTime: Units.iso8601(nanoseconds: snapshot.info.timestampNanoseconds),
            durableVersion: Self.durableVersion(store: store, slots: slots, current: snapshot.version),
            slots: slotInfo, fileBytes: usage.fileBytes, logicalBytes: usage.logicalPages * UInt64(usage.pageSize),
            liveBytes: usage.liveBytes, freeBytes: usage.freeBytes, pinnedBytes: usage.pinnedBytes,
            awaitingReclaimBytes: usage.awaitingReclaimPages * UInt64(usage.pageSize), trees: trees,
            objectTypes: objectTypes, objectTypesProblem: objectTypesProblem,
            pins: pins.filter { !$0.stale }.count, stalePins: pins.filter(\.stale).count,
            writerPID: lock?.writerPID, pinned: access.pinned, note: access.note)
    }
}

extension Info {
    /// The durable version as the lock file records it (writers and
    /// `sync()` keep it), or, without one, the version the open-time check
    /// chooses from the slots: what opens after a power loss. Never above
    /// the version read.
    static func durableVersion(store: Store, slots: CommitSlots, current: UInt64) -> UInt64 {
        let recorded = store.lockFile?.durableVersion ?? 0
        let durable = recorded != 0 ? recorded : (slots.current?.version ?? current)
        return min(durable, current)
    }
}

#if canImport(Glibc)
import Glibc
#endif

func getpidValue() -> Int32 { getpid() }

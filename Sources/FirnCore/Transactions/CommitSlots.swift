/// Reading the two commit slots of a file and choosing the current version
/// (FORMAT.md 2.1).
package struct CommitSlots: Sendable {
    /// Each slot's record, or why it is not valid.
    package let slots: [Result<CommitRecord, CommitRecord.Defect>]
    package let pageSize: Int
    /// The newest valid record, when the open-time check rejected it: a
    /// page born in its version that it reaches did not check out, so its
    /// commit never completed its sync (a power loss). Not a defect.
    package private(set) var rejected: Rejection?
    /// Pages the open-time check read (0 when it did not run): the pages the
    /// newest record's commit wrote and still reaches, whatever the file's size.
    package private(set) var pagesChecked = 0
    /// True once `validated(_:)` ran.
    package private(set) var isValidated = false
    /// The newest record was taken unread although the open-time check
    /// would have walked its pages (`StoreOptions.defersOpenCheck`): it is
    /// current only for `verify`, whose walk decides, and nobody publishes it
    /// until that walk found it clean (`Store.acceptDeferredCheck()`).
    package private(set) var checkDeferred = false
    /// The references whose pages the check proved, by page (only when
    /// asked for: `StoreOptions.keepOpenCheckPages`).
    private(set) var checkedPages: ProvedPages? = nil

    /// A newest record that the open-time check rejected, and why.
    package struct Rejection: Sendable, Equatable, Codable, CustomStringConvertible {
        package var version: UInt64
        /// The page that did not check out.
        package var page: UInt64
        package var reason: String

        package var description: String {
            "the record of version \(version) was rejected: page \(page): \(reason) (its commit did not complete; "
                + "the previous version is current)"
        }
    }

    init(slots: [Result<CommitRecord, CommitRecord.Defect>], pageSize: Int) {
        self.slots = slots
        self.pageSize = pageSize
    }

    private var valid: [CommitRecord] { slots.compactMap { try? $0.get() } }

    /// The valid record with the highest version, accepted or not.
    package var newest: CommitRecord? {
        // Without the array `valid` makes: every transaction asks.
        var newest: CommitRecord? = nil
        for case let .success(record) in slots where newest.map({ record.version > $0.version }) ?? true {
            newest = record
        }
        return newest
    }

    /// The current version: the newest valid record, unless the open-time
    /// check rejected it (then the other slot's).
    package var current: CommitRecord? {
        valid.filter { $0.version != rejected?.version }.max { $0.version < $1.version }
    }

    /// The valid record that is neither current nor rejected.
    package var previous: CommitRecord? {
        guard let current else { return nil }
        return valid.first { $0.version != current.version && $0.version != rejected?.version }
    }

    /// The record of `version`, if a slot holds it (rejected or not).
    package func record(version: UInt64) -> CommitRecord? {
        for case let .success(record) in slots where record.version == version { return record }
        return nil
    }

    /// These slots after the open-time check of the newest record (FORMAT.md
    /// 2.1). The newest record *N* falls back to its durable base *D* (N −
    /// distance) when a slot holds it. With a fallback, an unsealed record
    /// (a deferred commit of a group that never reached its durability
    /// point) is rejected outright: it was written without a sync, so its
    /// pages may be anywhere. A sealed one is accepted when every page it
    /// reaches born in (D, N] checks out against its reference; otherwise
    /// it is rejected and D — made durable by its own sync before the group
    /// (or commit) began — is current. Without a fallback the newest record
    /// is current and any damage is for `verify` to report.
    ///
    /// `earlier`, a check already made on this file: when its newest record
    /// is the same record, its verdict stands (the pages that record
    /// reaches are never rewritten while it is the newest) and nothing is read.
    package func validated(_ io: any FileIO, reusing earlier: CommitSlots? = nil) -> CommitSlots {
        validated(io, reusing: earlier, keepingCheckedPages: false)
    }

    func validated(
        _ io: any FileIO, reusing earlier: CommitSlots? = nil, keepingCheckedPages: Bool
    ) -> CommitSlots {
        var result = self
        result.isValidated = true
        if let earlier, earlier.isValidated, let newest, earlier.newest == newest {
            result.rejected = earlier.rejected
            result.checkedPages = earlier.checkedPages
            return result
        }
        guard let newest, newest.version > 1,
              let index = slotIndex(of: newest.version),
              valid.contains(where: { $0.version == newest.durableBase }) else { return result }
        if newest.unsealed {
            result.rejected = Rejection(
                version: newest.version, page: UInt64(index),
                reason: "unsealed: a deferred commit whose group never reached its durability point "
                    + "(version \(newest.durableBase) is the durable base)")
            return result
        }
        var check = NewestRecordCheck(io: io, record: newest, keepingCheckedPages: keepingCheckedPages)
        do throws(NewestRecordCheck.Failure) {
            try check.run()
            result.checkedPages = check.checkedPages
        } catch {
            result.rejected = Rejection(version: newest.version, page: error.page, reason: error.reason)
        }
        result.pagesChecked = check.pagesRead
        return result
    }

    /// These slots for `verify` (`StoreOptions.defersOpenCheck`): when the
    /// open-time check would walk the newest record's pages, the record is
    /// taken unread with `checkDeferred` set, since the verifier's walk
    /// checks every page that walk would, against the same references, and
    /// more. Otherwise — no fallback, or an unsealed record, which is
    /// rejected without reading a page — as `validated`, which reads nothing.
    func deferringWalk(_ io: any FileIO) -> CommitSlots {
        guard let newest, newest.version > 1, slotIndex(of: newest.version) != nil, !newest.unsealed,
              valid.contains(where: { $0.version == newest.durableBase }) else {
            return validated(io, keepingCheckedPages: false)
        }
        var result = takenAsChecked()
        result.checkDeferred = true
        return result
    }

    /// These slots with the newest record accepted unread
    /// (`StoreOptions.skipsOpenCheck`: a file a full verify reads next).
    func takenAsChecked() -> CommitSlots {
        var result = self
        result.isValidated = true
        return result
    }

    /// These slots with an unsealed newest record accepted after all, when
    /// its pages check out (the walk of the newest-record check). Only for a
    /// writer in a session that outlived the record's writer (FORMAT.md 2.1:
    /// a writer died between a deferred commit's record and its publication):
    /// no power loss came between, so nothing it wrote was lost.
    func acceptingUnsealedNewest(_ io: any FileIO) -> CommitSlots {
        guard let newest, newest.unsealed, rejected?.version == newest.version else { return self }
        var result = self
        var check = NewestRecordCheck(io: io, record: newest)
        do throws(NewestRecordCheck.Failure) {
            try check.run()
            result.rejected = nil
        } catch {
            result.rejected = Rejection(version: newest.version, page: error.page, reason: error.reason)
        }
        result.pagesChecked += check.pagesRead
        return result
    }

    /// The slot (0 or 1) whose valid record has `version`.
    package func slotIndex(of version: UInt64) -> Int? {
        slots.firstIndex { (try? $0.get())?.version == version }
    }

    /// The slot a commit on top of `base` writes into: the one not holding
    /// the last durable version (FORMAT.md 8). On a sealed base that is the
    /// base itself, so the commit goes into the other slot; on an unsealed
    /// base (a group is open) it is the base's durable base, so the commit
    /// overwrites the base's own slot, and the durable base stays intact in
    /// its slot until the group is sealed.
    func slotForCommit(on base: CommitRecord) -> (slot: Int, durable: UInt64) {
        let baseSlot = slotIndex(of: base.version) ?? 0
        if base.unsealed, let durableSlot = slotIndex(of: base.durableBase), durableSlot != baseSlot {
            return (1 - durableSlot, base.durableBase)
        }
        // Sealed, or unsealed with no durable base in a slot (accepted for
        // lack of anything else): the base is what the next commit builds
        // on as durable.
        return (1 - baseSlot, base.version)
    }

    /// Why the two slots do not describe one history (FORMAT.md 2): two
    /// valid records are a version and its durable base. Which slot holds
    /// which is not a rule (a group writes all its records into one slot).
    package enum RelationDefect: Sendable, Equatable, CustomStringConvertible {
        case sameVersion(UInt64)
        /// The older record is not the newer one's durable base.
        case notDurableBase(newer: UInt64, older: UInt64, expected: UInt64, slot: Int)

        /// The slot page the defect is reported at: the older record's.
        /// (Two copies of one version cannot be told apart; the one an
        /// alternating history would not have written is named.)
        package var slot: Int {
            switch self {
            case let .sameVersion(version): Int((version &+ 1) % 2)
            case let .notDurableBase(_, _, _, slot): slot
            }
        }

        package var description: String {
            switch self {
            case let .sameVersion(version): "both commit slots hold version \(version)"
            case let .notDurableBase(newer, older, expected, _):
                "the other slot holds version \(older), which is not the durable base of version \(newer): expected \(expected) (version − the distance at offset 104)"
            }
        }
    }

    /// The first relation defect between the valid slots, if any.
    package var relationDefect: RelationDefect? {
        guard case let .success(first) = slots[0], slots.count > 1, case let .success(second) = slots[1] else { return nil }
        if first.version == second.version { return .sameVersion(first.version) }
        let (newer, older, olderSlot) = first.version > second.version ? (first, second, 1) : (second, first, 0)
        return older.version == newer.durableBase
            ? nil : .notDurableBase(newer: newer.version, older: older.version, expected: newer.durableBase, slot: olderSlot)
    }

    /// The current record, for a writer about to commit on top of it (into
    /// the other slot, which may hold a rejected record: that is expected,
    /// its commit never completed). A
    /// torn or empty slot is expected (a crash, a new or compacted file);
    /// a checksum-valid record with impossible fields, or two records that
    /// are not a version and its durable base, are damage: the writer
    /// would overwrite the wrong slot or overflow a version, so it refuses.
    func currentForWriting(path: String) throws(FirnError) -> CommitRecord {
        for (index, slot) in slots.enumerated() {
            if case let .failure(defect) = slot, !defect.isTornOrEmpty {
                throw FirnError.corrupt(path: path, page: UInt64(index), version: nil,
                                        detail: "commit slot \(index): \(defect)")
            }
        }
        if let defect = relationDefect {
            throw FirnError.corrupt(path: path, page: UInt64(defect.slot), version: nil, detail: defect.description)
        }
        guard let current else {
            throw FirnError.corrupt(path: path, page: nil, version: nil, detail: "neither commit slot is valid")
        }
        return current
    }

    /// Reads both slots. Slot 0 tells the page size; when it is damaged,
    /// slot 1 is looked for at each possible page size.
    static func read(_ io: any FileIO) throws(FirnError) -> CommitSlots {
        let fileSize = try io.size()
        guard fileSize >= UInt64(CommitRecord.size) else {
            throw FirnError.notAFirnFile(
                path: io.path, detail: fileSize == 0 ? "the file is empty" : "the file is only \(fileSize) bytes")
        }
        let first = try readRecord(io, at: 0)
        if case let .success(record) = first {
            let size = Int(record.pageSize)
            let second = fileSize >= UInt64(size + CommitRecord.size) ? try readRecord(io, at: UInt64(size)) : .failure(.empty)
            return CommitSlots(slots: [first, Self.consistent(second, pageSize: size)], pageSize: size)
        }
        var size = PageGeometry.minPageSize
        // A record in slot 1 (its magic there) that is not valid: the file
        // is a Firn file whose only record is damaged (65), not an empty
        // or foreign file (66) — e.g. an unsealed version 1.
        var damagedSecond: (size: Int, defect: CommitRecord.Defect)?
        while size <= PageGeometry.maxPageSize {
            if fileSize >= UInt64(size + CommitRecord.size) {
                switch try readRecord(io, at: UInt64(size)) {
                case let .success(record) where Int(record.pageSize) == size:
                    return CommitSlots(slots: [first, .success(record)], pageSize: size)
                case let .failure(defect) where damagedSecond == nil && defect != .empty && defect != .badMagic:
                    damagedSecond = (size, defect)
                default:
                    break
                }
            }
            size <<= 1
        }
        if case .failure(.badMagic) = first {
            throw FirnError.notAFirnFile(path: io.path, detail: "no Firn commit record at the start (bad magic)")
        }
        if case .failure(.empty) = first {
            if let damaged = damagedSecond {
                throw FirnError.corrupt(path: io.path, page: 1, version: nil,
                                        detail: "commit slot 0 is empty and slot 1 (at page size \(damaged.size)) holds no valid record: \(damaged.defect)")
            }
            throw FirnError.notAFirnFile(path: io.path, detail: "both commit slots are empty")
        }
        let reason: String
        switch first {
        case let .failure(defect): reason = defect.description
        case .success: reason = "valid"
        }
        throw FirnError.corrupt(path: io.path, page: 0, version: nil,
                                detail: "no valid commit slot: slot 0: \(reason); slot 1 not found at any page size")
    }

    private static func consistent(
        _ slot: Result<CommitRecord, CommitRecord.Defect>, pageSize: Int
    ) -> Result<CommitRecord, CommitRecord.Defect> {
        if case let .success(record) = slot, Int(record.pageSize) != pageSize {
            return .failure(.badPageSize(record.pageSize))
        }
        return slot
    }

    /// Both slots with one read when the page size is known (the writer's
    /// case, every commit), with the bytes each slot's record area held: a
    /// commit restores the one it overwrites if its own record cannot be
    /// made durable. Anything unusual (a short file, a first slot that is
    /// not valid at this page size) takes the general path of `read(_:)`.
    /// `buffer` is scratch space the caller keeps between calls.
    static func readWithBytes(
        _ io: any FileIO, pageSize: Int, buffer: inout [UInt8]
    ) throws(FirnError) -> (slots: CommitSlots, bytes: [[UInt8]]) {
        let size = CommitRecord.maximumSize
        if buffer.count != pageSize + size { buffer = [UInt8](repeating: 0, count: pageSize + size) }
        let n = try withMutableBytes(&buffer) { (b) throws(FirnError) in try io.read(into: b, at: 0) }
        if n == buffer.count {
            let (first, second) = buffer.withUnsafeBytes { (all) in
                (CommitRecord.decode(UnsafeRawBufferPointer(rebasing: all[0..<size])),
                 CommitRecord.decode(UnsafeRawBufferPointer(rebasing: all[pageSize..<(pageSize + size)])))
            }
            if case let .success(record) = first, Int(record.pageSize) == pageSize {
                let slots = CommitSlots(slots: [first, consistent(second, pageSize: pageSize)], pageSize: pageSize)
                return (slots, [Array(buffer[0..<size]), Array(buffer[pageSize...])])
            }
        }
        let slots = try read(io)
        var bytes: [[UInt8]] = []
        for index in 0..<2 {
            var saved = [UInt8](repeating: 0, count: size)
            let offset = UInt64(index) * UInt64(slots.pageSize)
            _ = try withMutableBytes(&saved) { (b) throws(FirnError) in try io.read(into: b, at: offset) }
            bytes.append(saved)
        }
        return (slots, bytes)
    }

    static func readRecord(_ io: any FileIO, at offset: UInt64) throws(FirnError) -> Result<CommitRecord, CommitRecord.Defect> {
        var bytes = [UInt8](repeating: 0, count: CommitRecord.maximumSize)
        let n = try withMutableBytes(&bytes) { (b) throws(FirnError) in try io.read(into: b, at: offset) }
        guard n >= CommitRecord.size else { return .failure(.empty) }
        return bytes.withUnsafeBytes { CommitRecord.decode(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
    }
}

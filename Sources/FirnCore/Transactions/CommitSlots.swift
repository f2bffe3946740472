/// Reading the two commit slots of a file and choosing the current version
/// (FORMAT.md 2.1).
public struct CommitSlots: Sendable {
    /// Each slot's record, or why it is not valid.
    public let slots: [Result<CommitRecord, CommitRecord.Defect>]
    public let pageSize: Int
    /// The newest valid record, when the open-time check rejected it: a
    /// page born in its version that it reaches did not check out, so its
    /// commit never completed its sync (a power loss). Not a defect.
    public private(set) var rejected: Rejection?
    /// Pages the open-time check read (0 when it did not run): the pages the
    /// newest record's commit wrote and still reaches, whatever the file's size.
    public private(set) var pagesChecked = 0
    /// True once `validated(_:)` ran.
    public private(set) var isValidated = false

    /// A newest record that the open-time check rejected, and why.
    public struct Rejection: Sendable, Equatable, Codable, CustomStringConvertible {
        public var version: UInt64
        /// The page that did not check out.
        public var page: UInt64
        public var reason: String

        public var description: String {
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
    public var newest: CommitRecord? {
        valid.max { $0.version < $1.version }
    }

    /// The current version: the newest valid record, unless the open-time
    /// check rejected it (then the other slot's).
    public var current: CommitRecord? {
        valid.filter { $0.version != rejected?.version }.max { $0.version < $1.version }
    }

    /// The valid record that is neither current nor rejected.
    public var previous: CommitRecord? {
        guard let current else { return nil }
        return valid.first { $0.version != current.version && $0.version != rejected?.version }
    }

    /// The record of `version`, if a slot holds it (rejected or not).
    public func record(version: UInt64) -> CommitRecord? {
        valid.first { $0.version == version }
    }

    /// These slots after the open-time check of the newest record (FORMAT.md
    /// 2.1): it is accepted when every page it reaches born in its version
    /// checks out against its reference, or when there is nothing to fall
    /// back to (no valid record of the version before it: the damage is
    /// then for `verify` to report). Otherwise it is rejected and the other
    /// slot's version — made durable by its own sync before the rejected
    /// commit began — is current.
    public func validated(_ io: any FileIO) -> CommitSlots {
        var result = self
        result.isValidated = true
        guard let newest, newest.version > 1,
              valid.contains(where: { $0.version == newest.version - 1 }) else { return result }
        var check = NewestRecordCheck(io: io, record: newest)
        do throws(NewestRecordCheck.Failure) {
            try check.run()
        } catch {
            result.rejected = Rejection(version: newest.version, page: error.page, reason: error.reason)
        }
        result.pagesChecked = check.pagesRead
        return result
    }

    /// Reads both slots and runs the open-time check.
    public static func readValidated(_ io: any FileIO) throws(FirnError) -> CommitSlots {
        try read(io).validated(io)
    }

    /// Why the two slots do not describe one history (FORMAT.md, "Choosing
    /// the current version"): version v lives in slot v mod 2, and when
    /// both slots hold valid records, they are consecutive versions.
    public enum RelationDefect: Sendable, Equatable, CustomStringConvertible {
        case wrongSlot(version: UInt64, slot: Int)
        case sameVersion(UInt64)
        case notConsecutive(current: UInt64, previous: UInt64)

        /// The slot page the defect is reported at.
        public var slot: Int {
            switch self {
            case let .wrongSlot(_, slot): slot
            case let .sameVersion(version): Int(version % 2)
            case let .notConsecutive(current, _): Int((current &+ 1) % 2)
            }
        }

        public var description: String {
            switch self {
            case let .wrongSlot(version, slot):
                "version \(version) is in slot \(slot) (version v belongs in slot v mod 2)"
            case let .sameVersion(version): "both commit slots hold version \(version)"
            case let .notConsecutive(current, previous):
                "the previous slot holds version \(previous), expected \(current - 1) (the current version is \(current))"
            }
        }
    }

    /// The first relation defect between the valid slots, if any.
    public var relationDefect: RelationDefect? {
        for (index, slot) in slots.enumerated() {
            if case let .success(record) = slot, record.version % 2 != UInt64(index) {
                return .wrongSlot(version: record.version, slot: index)
            }
        }
        let valid = slots.compactMap { try? $0.get() }
        guard valid.count == 2 else { return nil }
        if valid[0].version == valid[1].version { return .sameVersion(valid[0].version) }
        let current = max(valid[0].version, valid[1].version), previous = min(valid[0].version, valid[1].version)
        return previous == current - 1 ? nil : .notConsecutive(current: current, previous: previous)
    }

    /// The current record, for a writer about to commit on top of it (into
    /// the other slot, which may hold a rejected record: that is expected,
    /// its commit never completed). A
    /// torn or empty slot is expected (a crash, a new or compacted file);
    /// a checksum-valid record with impossible fields, or slots that are not
    /// consecutive versions each in its own slot, are damage: the writer
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
        while size <= PageGeometry.maxPageSize {
            if fileSize >= UInt64(size + CommitRecord.size),
               case let .success(record) = try readRecord(io, at: UInt64(size)), Int(record.pageSize) == size {
                return CommitSlots(slots: [first, .success(record)], pageSize: size)
            }
            size <<= 1
        }
        if case .failure(.badMagic) = first {
            throw FirnError.notAFirnFile(path: io.path, detail: "no Firn commit record at the start (bad magic)")
        }
        if case .failure(.empty) = first {
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

    static func readRecord(_ io: any FileIO, at offset: UInt64) throws(FirnError) -> Result<CommitRecord, CommitRecord.Defect> {
        var bytes = [UInt8](repeating: 0, count: CommitRecord.size)
        let n = try withMutableBytes(&bytes) { (b) throws(FirnError) in try io.read(into: b, at: offset) }
        guard n == CommitRecord.size else { return .failure(.empty) }
        return bytes.withUnsafeBytes { CommitRecord.decode($0) }
    }
}

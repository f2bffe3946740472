/// Reading the two commit slots of a file and choosing the current version.
public struct CommitSlots: Sendable {
    /// Each slot's record, or why it is not valid.
    public let slots: [Result<CommitRecord, CommitRecord.Defect>]
    public let pageSize: Int

    /// The valid record with the highest version.
    public var current: CommitRecord? {
        slots.compactMap { try? $0.get() }.max { $0.version < $1.version }
    }

    /// The valid record that is not current.
    public var previous: CommitRecord? {
        guard let current else { return nil }
        return slots.compactMap { try? $0.get() }.first { $0.version != current.version }
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

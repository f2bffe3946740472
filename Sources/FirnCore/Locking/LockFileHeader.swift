#if canImport(Glibc)
import Glibc
#endif
import CFirnShims

/// The lock file's header (the first 4096 bytes; byte layout in
/// `LockFileLayout`): validation of header bytes read with `pread` before
/// anything is mapped, and initialization of a freshly sized mapping.
struct LockFileHeader: Equatable {
    var readerSlotCount: Int
    var dataFile: DataFileIdentity

    /// Checks `bytes` (the start of the file, up to 4096 bytes) and the
    /// file's size. Returns the header, or why the file is not a usable lock
    /// file for the data file `identity`.
    static func validate(_ bytes: [UInt8], fileSize: Int,
                         identity: DataFileIdentity) -> Result<LockFileHeader, Invalid> {
        let headerSize = LockFileLayout.readerTableOffset
        guard fileSize >= headerSize, bytes.count >= headerSize else {
            if fileSize == 0 { return .failure(Invalid("empty")) }
            return .failure(Invalid("too short: \(fileSize) bytes, the header alone is \(headerSize)"))
        }
        guard Array(bytes[0..<8]) == LockFileLayout.magic else {
            return .failure(Invalid("bad magic"))
        }
        let version = readUInt32(bytes, LockFileLayout.layoutVersionOffset)
        guard version == LockFileLayout.layoutVersion else {
            return .failure(Invalid("layout version \(version), expected \(LockFileLayout.layoutVersion)"))
        }
        let slots = Int(readUInt32(bytes, LockFileLayout.readerSlotCountOffset))
        guard (1...LockFileLayout.maximumReaderSlots).contains(slots) else {
            return .failure(Invalid("reader slot count \(slots) out of range 1…\(LockFileLayout.maximumReaderSlots)"))
        }
        let sessions = Int(readUInt32(bytes, LockFileLayout.sessionEntryCountOffset))
        guard sessions == LockFileLayout.sessionEntryCount else {
            return .failure(Invalid("session entry count \(sessions), expected \(LockFileLayout.sessionEntryCount)"))
        }
        let needed = LockFileLayout.fileSize(readerSlots: slots)
        guard fileSize >= needed else {
            return .failure(Invalid("too short for its \(slots) reader slots: \(fileSize) bytes, expected \(needed)"))
        }
        let recorded = DataFileIdentity(
            device: readUInt64(bytes, LockFileLayout.dataFileDeviceOffset),
            inode: readUInt64(bytes, LockFileLayout.dataFileInodeOffset))
        let header = LockFileHeader(readerSlotCount: slots, dataFile: recorded)
        guard !recorded.conflicts(with: identity) else {
            return .failure(Invalid(
                "it belongs to another data file (\(recorded); the database is \(identity))",
                kind: .otherDataFile, header: header))
        }
        return .success(header)
    }

    /// Why header bytes were rejected, in words for an error message.
    struct Invalid: Error, Equatable {
        enum Kind: Equatable {
            /// Not a lock file, or a damaged one.
            case malformed
            /// A valid lock file recording another data file: the database
            /// was replaced at its path (by rename) and the processes that
            /// had the old one open still hold the lock file.
            case otherDataFile
        }
        let reason: String
        let kind: Kind
        /// The header, sound but for its data file (`otherDataFile`).
        let header: LockFileHeader?
        init(_ reason: String, kind: Kind = .malformed, header: LockFileHeader? = nil) {
            self.reason = reason
            self.kind = kind
            self.header = header
        }
    }

    /// Writes a fresh header into `mapping` (already zeroed); the magic goes last.
    static func initialize(_ mapping: SharedMapping, readerSlots: Int, dataFile: DataFileIdentity) {
        mapping.store32(LockFileLayout.layoutVersionOffset, LockFileLayout.layoutVersion)
        mapping.store32(LockFileLayout.readerSlotCountOffset, UInt32(readerSlots))
        mapping.store32(LockFileLayout.sessionEntryCountOffset, UInt32(LockFileLayout.sessionEntryCount))
        mapping.store64(LockFileLayout.dataFileDeviceOffset, dataFile.device)
        mapping.store64(LockFileLayout.dataFileInodeOffset, dataFile.inode)
        mapping.write(LockFileLayout.magic, at: LockFileLayout.magicOffset, paddedTo: 8)
    }

    /// The live-looking pids in a raw session table, read leniently from a
    /// file whose header failed validation (used only to name holders).
    static func sessionPIDs(in bytes: [UInt8]) -> [Int32] {
        var pids: [Int32] = []
        for index in 0..<LockFileLayout.sessionEntryCount {
            let offset = LockFileLayout.sessionEntryOffset(index)
            guard offset + SessionEntryLayout.size <= bytes.count else { break }
            let word = SlotStateWord(raw: readUInt32(bytes, offset + SessionEntryLayout.stateOffset))
            guard word.isActive else { continue }
            pids.append(Int32(bitPattern: readUInt32(bytes, offset + SessionEntryLayout.pidOffset)))
        }
        return pids
    }

    private static func readUInt32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        guard offset >= 0, offset + 4 <= bytes.count else { return 0 }
        var value: UInt32 = 0
        for index in 0..<4 { value |= UInt32(bytes[offset + index]) << (8 * index) }
        return value
    }

    private static func readUInt64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        guard offset >= 0, offset + 8 <= bytes.count else { return 0 }
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(bytes[offset + index]) << (8 * index) }
        return value
    }
}

import Foundation
import FirnCore
import FirnTools

/// Byte-level edits of a database file for the hostile-input tests: flip,
/// zero, rewrite a page, then optionally re-seal it and every checksum on
/// the path up to the commit slot, so that only the intended defect is wrong.
/// Layouts as in docs: page checksum at 28 over [0,28)+[32,size); a
/// reference is page u64, birth u64, crc u32; the commit record's catalog
/// root at 40 and its own CRC at 108 over [0,108).
struct FileSurgery {
    let path: String
    let pageSize = 4096
    var bytes: [UInt8]

    init(_ path: String) throws {
        self.path = path
        bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func save() throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

    func offset(_ page: UInt64) -> Int { Int(page) * pageSize }

    func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
    func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
    func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) } }
    mutating func put16(_ v: UInt16, _ at: Int) { for i in 0..<2 { bytes[at + i] = UInt8(truncatingIfNeeded: v >> (8 * i)) } }
    mutating func put32(_ v: UInt32, _ at: Int) { for i in 0..<4 { bytes[at + i] = UInt8(truncatingIfNeeded: v >> (8 * i)) } }
    mutating func put64(_ v: UInt64, _ at: Int) { for i in 0..<8 { bytes[at + i] = UInt8(truncatingIfNeeded: v >> (8 * UInt64(i))) } }

    mutating func flipBit(page: UInt64, at byte: Int, bit: Int = 3) { bytes[offset(page) + byte] ^= UInt8(1 << bit) }

    mutating func zero(page: UInt64) {
        for i in offset(page)..<(offset(page) + pageSize) { bytes[i] = 0 }
    }

    func birth(_ page: UInt64) -> UInt64 { u64(offset(page) + 16) }
    func checksum(_ page: UInt64) -> UInt32 { u32(offset(page) + 28) }

    /// Recomputes a page's own checksum.
    mutating func seal(_ page: UInt64) {
        let start = offset(page)
        let crc = bytes.withUnsafeBytes { all -> UInt32 in
            let head = UnsafeRawBufferPointer(rebasing: all[start..<(start + 28)])
            let tail = UnsafeRawBufferPointer(rebasing: all[(start + 32)..<(start + pageSize)])
            return CRC32C.checksum(tail, continuing: CRC32C.checksum(head))
        }
        put32(crc, start + 28)
    }

    /// The slot holding the current (highest valid) version.
    var currentSlot: Int {
        let versions = (0..<2).map { slot -> UInt64 in
            let base = slot * pageSize
            let valid = bytes[base..<(base + 8)].elementsEqual(CommitRecord.magic)
            return valid ? u64(base + 16) : 0
        }
        return versions[1] > versions[0] ? 1 : 0
    }

    var catalogRoot: UInt64 { u64(currentSlot * pageSize + 40) }
    var spaceRoot: UInt64 { u64(currentSlot * pageSize + 60) }
    /// Offset of the current commit record in the file.
    var slotOffset: Int { currentSlot * pageSize }

    /// Re-seals `page`, then updates the reference to it in each parent
    /// (found by its page and birth) and re-seals that, and finally the
    /// commit slot when `page`'s chain ends at the catalog root.
    mutating func resealChain(_ page: UInt64, parents: [UInt64]) {
        seal(page)
        var child = page
        for parent in parents {
            updateReference(in: parent, to: child)
            seal(parent)
            child = parent
        }
        let slot = currentSlot * pageSize
        // The commit record's catalog root (offset 40) or space root (offset 60).
        for root in [slot + 40, slot + 60] where u64(root) == child {
            put64(birth(child), root + 8)
            put32(checksum(child), root + 16)
            // A format 3 record (a commit log region) is 128 bytes, its
            // checksum at 124; format 2's is 112, at 108 (FORMAT.md 2).
            let end = u32(slot + 8) == 3 ? slot + 124 : slot + 108
            let crc = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[slot..<end])) }
            put32(crc, end)
        }
    }

    /// Rewrites the checksum of every reference to `child` inside `parent`.
    mutating func updateReference(in parent: UInt64, to child: UInt64) {
        let start = offset(parent)
        let birth = self.birth(child)
        var at = start + 32
        while at + 20 <= start + pageSize {
            if u64(at) == child && u64(at + 8) == birth {
                put32(checksum(child), at + 16)
                at += 20
            } else {
                at += 1
            }
        }
    }

    /// Re-seals the current commit record after an edit of its fields.
    mutating func resealSlot() {
        let slot = currentSlot * pageSize
        let crc = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[slot..<(slot + 108)])) }
        put32(crc, slot + 108)
    }

    /// Offset (in the file) of cell `index` of a branch or leaf page.
    func cell(_ page: UInt64, _ index: Int) -> Int { offset(page) + Int(u16(offset(page) + 32 + 2 * index)) }
}

import Foundation
import FirnTools

/// Whole-page rewrites for hostile-input tests: a leaf or branch page is
/// decoded into its cells, edited, and laid out again (offset table after
/// the header, cells packed at the end of the page), keeping the header's
/// type, level, number and birth. Seal with `resealChain` afterwards, so
/// that only the intended defect is wrong. Layouts as in docs/FORMAT.md 5.
extension FileSurgery {
    /// A leaf cell as stored: `payload` is the inline value, or with flag
    /// bit 0 the chain's head reference and total length (28 bytes).
    struct LeafCellImage: Equatable {
        var key: [UInt8]
        var flags: UInt8 = 0
        var reserved: UInt8 = 0
        var inlineLength: UInt32
        var payload: [UInt8]

        static func inline(_ key: [UInt8], _ value: [UInt8]) -> LeafCellImage {
            LeafCellImage(key: key, inlineLength: UInt32(value.count), payload: value)
        }

        var isOverflow: Bool { flags & 1 != 0 }

        var encoded: [UInt8] {
            var out: [UInt8] = [UInt8(key.count & 0xFF), UInt8(key.count >> 8), flags, reserved]
            for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: inlineLength >> (8 * UInt32(i)))) }
            return out + key + payload
        }
    }

    struct BranchCellImage: Equatable {
        var key: [UInt8]
        /// The child `PageRef`, 20 bytes.
        var child: [UInt8]

        var encoded: [UInt8] { [UInt8(key.count & 0xFF), UInt8(key.count >> 8)] + child + key }
        var childPage: UInt64 { child.prefix(8).enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) } }
    }

    func count(_ page: UInt64) -> Int { Int(u16(offset(page) + 2)) }

    func leafCells(_ page: UInt64) -> [LeafCellImage] {
        (0..<count(page)).map { i in
            let at = cell(page, i)
            let keyLength = Int(u16(at))
            let flags = bytes[at + 2]
            let inlineLength = u32(at + 4)
            let key = Array(bytes[(at + 8)..<(at + 8 + keyLength)])
            let payloadLength = flags & 1 != 0 ? 28 : Int(inlineLength)
            let payload = Array(bytes[(at + 8 + keyLength)..<(at + 8 + keyLength + payloadLength)])
            return LeafCellImage(key: key, flags: flags, reserved: bytes[at + 3], inlineLength: inlineLength, payload: payload)
        }
    }

    func branchCells(_ page: UInt64) -> [BranchCellImage] {
        (0..<count(page)).map { i in
            let at = cell(page, i)
            let keyLength = Int(u16(at))
            return BranchCellImage(key: Array(bytes[(at + 22)..<(at + 22 + keyLength)]), child: Array(bytes[(at + 2)..<(at + 22)]))
        }
    }

    mutating func writeLeaf(_ page: UInt64, _ cells: [LeafCellImage]) { layOut(page, cells.map(\.encoded)) }
    mutating func writeBranch(_ page: UInt64, _ cells: [BranchCellImage]) { layOut(page, cells.map(\.encoded)) }

    /// Rewrites leaf `page` of the file at `path` with its cells as `edit`
    /// leaves them, re-seals it and the chain up through `parents` (the
    /// catalog root last, or none when `page` is the catalog root), and
    /// saves the file.
    static func rewriteLeaf(_ path: String, _ page: UInt64, parents: [UInt64],
                            _ edit: (inout [LeafCellImage]) throws -> Void) throws {
        var file = try FileSurgery(path)
        var cells = file.leafCells(page)
        try edit(&cells)
        file.writeLeaf(page, cells)
        file.resealChain(page, parents: parents)
        try file.save()
    }

    /// Sorts leaf cells by key (memcmp order), as a rewritten leaf needs them.
    static func sorted(_ cells: [LeafCellImage]) -> [LeafCellImage] {
        cells.sorted { $0.key.lexicographicallyPrecedes($1.key) }
    }

    private mutating func layOut(_ page: UInt64, _ cells: [[UInt8]]) {
        let start = offset(page)
        put16(UInt16(cells.count), start + 2)
        for i in (start + 32)..<(start + pageSize) { bytes[i] = 0 }
        var top = pageSize
        for (i, cell) in cells.enumerated() {
            top -= cell.count
            precondition(top >= 32 + 2 * cells.count, "cells do not fit page \(page)")
            for (j, b) in cell.enumerated() { bytes[start + top + j] = b }
            put16(UInt16(top), start + 32 + 2 * i)
        }
    }

    /// The index of the leaf cell whose key is `key`.
    func leafIndex(_ page: UInt64, key: [UInt8]) -> Int? { leafCells(page).firstIndex { $0.key == key } }

    /// Sets a page's birth, and the birth in every reference to it inside
    /// `parent` (found by page number at a reference's position), without sealing.
    mutating func setBirth(_ page: UInt64, to birth: UInt64, referencedFrom parent: UInt64) {
        let old = self.birth(page)
        put64(birth, offset(page) + 16)
        let start = offset(parent)
        var at = start + 32
        while at + 20 <= start + pageSize {
            if u64(at) == page && u64(at + 8) == old {
                put64(birth, at + 8)
                at += 20
            } else {
                at += 1
            }
        }
    }

    /// Rewrites a field of the current commit record and re-seals it.
    mutating func setRecordField(_ value: UInt64, at fieldOffset: Int) {
        put64(value, slotOffset + fieldOffset)
        resealSlot()
    }

    /// Space-tree keys (big-endian integers after the tag byte).
    static func spaceKey(_ tag: Character, _ numbers: UInt64...) -> [UInt8] {
        var key = [UInt8(ascii: tag.unicodeScalars.first ?? "?")]
        for n in numbers { for i in (0..<8).reversed() { key.append(UInt8(truncatingIfNeeded: n >> (8 * UInt64(i)))) } }
        return key
    }

    static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 { bytes.reduce(0) { $0 << 8 | UInt64($1) } }
}

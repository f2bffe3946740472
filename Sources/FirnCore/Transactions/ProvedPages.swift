/// The references whose pages the open-time check proved (`NewestRecordCheck`),
/// by page: `verify` skips the checksum of a page it reaches through the
/// very reference the check proved it against.
///
/// Open addressing keyed by page number with a multiplicative hash, at most
/// half full: a lookup is one or two reads of one array. A `Dictionary`
/// hashed every page number with SipHash, and its lookups were 6 % of
/// `firn verify` on a file written in one transaction (every page proved).
package struct ProvedPages: Sendable {
    /// Each slot's reference; `PageRef.none` (page 0, which no tree page
    /// is) marks an empty one. A power of two in size.
    private var slots: [PageRef]
    private(set) var count = 0

    init() {
        slots = [PageRef](repeating: .none, count: 16)
    }

    /// Records `ref` as proved (a page appears once in a walk).
    mutating func insert(_ ref: PageRef) {
        guard ref.page != 0 else { return }
        if (count + 1) * 2 > slots.count { grow() }
        let at = slot(of: ref.page)
        if slots[at].page == 0 { count += 1 }
        slots[at] = ref
    }

    /// Adds every reference `other` proved (the other half of a two-core check).
    mutating func formUnion(_ other: ProvedPages) {
        for ref in other.slots where ref.page != 0 { insert(ref) }
    }

    /// Whether `ref` is exactly the reference a page was proved against.
    func proves(_ ref: PageRef) -> Bool {
        ref.page != 0 && slots[slot(of: ref.page)] == ref
    }

    /// The proved page numbers.
    var pages: Set<UInt64> { Set(slots.lazy.filter { $0.page != 0 }.map(\.page)) }

    /// The slot holding `page`, or the empty one where it would go.
    private func slot(of page: UInt64) -> Int {
        let mask = slots.count - 1
        // A multiplicative hash folded onto its low bits: consecutive
        // pages (a bulk-loaded file's) spread over the table.
        let hash = page &* 0x9E37_79B9_7F4A_7C15
        var at = Int(truncatingIfNeeded: hash ^ (hash >> 32)) & mask
        while slots[at].page != 0 && slots[at].page != page { at = (at + 1) & mask }
        return at
    }

    private mutating func grow() {
        let old = slots
        slots = [PageRef](repeating: .none, count: old.count * 2)
        count = 0
        for ref in old where ref.page != 0 { insert(ref) }
    }
}

/// Claiming a reader slot or session entry, and freeing one a claim left
/// behind. Both start with the state word (u32 at +0) and the pid (i32 at
/// +4), which together are one 8-aligned u64 (little-endian: the state word
/// in its low half).
///
/// The claim swaps both at once, (g, free, any pid) → (g + 1, claiming, our
/// pid): a slot is never `claiming` under the pid of its previous occupant.
/// So a `claiming` slot whose pid is not alive was claimed by a process that
/// died before publishing it (or that never will: it is gone), and it can be
/// freed like a stale active one, by a CAS on the same u64 — it fails when
/// the slot changed hands since it was read. A state other than free,
/// claiming or active is written by no process (damage): it is freed
/// whoever its pid names, since no pin or session counts it. Without this,
/// slots left `claiming` stayed unusable until the lock file was next
/// reinitialized, and a table full of them refused every reader.
///
/// The 64-bit operations share their words with the 32-bit ones on the
/// state word that publish and free slots; both are single lock-prefixed
/// (or exclusive-pair) instructions on the same cache line, coherent with
/// each other on the machines Firn runs on, as the mapping is shared
/// across processes outside any language memory model anyway.
enum SlotClaim {
    /// Claims the slot or entry at `offset` when it is free: the claimed
    /// state word (claiming, next generation), or nil when it is not free
    /// or another claimer won.
    static func claim(_ mapping: SharedMapping, at offset: Int, ownPID: Int32) -> SlotStateWord? {
        let both = mapping.load64(offset)
        let word = SlotStateWord(raw: UInt32(truncatingIfNeeded: both))
        guard word.isFree else { return nil }
        let claimed = word.claimed
        let desired = UInt64(claimed.raw) | UInt64(UInt32(bitPattern: ownPID)) << 32
        guard mapping.cas64(offset, expected: both, desired: desired) else { return nil }
        return claimed
    }

    /// Frees the slot or entry at `offset` when a claim left it behind: a
    /// `claiming` state whose pid is not alive, or an undefined state.
    /// True when it freed it.
    static func reclaimAbandoned(_ mapping: SharedMapping, at offset: Int, probe: inout LivenessProbe) -> Bool {
        let both = mapping.load64(offset)
        let word = SlotStateWord(raw: UInt32(truncatingIfNeeded: both))
        switch word.state {
        case SlotStateWord.free, SlotStateWord.active:
            return false
        case SlotStateWord.claiming:
            let pid = Int32(bitPattern: UInt32(truncatingIfNeeded: both >> 32))
            guard !probe.isAlive(pid) else { return false }
        default:
            break
        }
        let freed = (both & 0xFFFF_FFFF_0000_0000) | UInt64(word.with(state: SlotStateWord.free).raw)
        return mapping.cas64(offset, expected: both, desired: freed)
    }
}

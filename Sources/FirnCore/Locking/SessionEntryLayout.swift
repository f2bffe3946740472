/// One entry of the lock file's session table (128 entries at offset 128):
/// who has the database open, so an exclusive operation that is refused can
/// name the processes in its way. The OFD session lock is authoritative;
/// the table only names its holders.
///
/// | offset | size | field |
/// | ---: | ---: | --- |
/// | 0 | 4 | state word, u32 (atomic): bits 0–7 state (0 free, 1 claiming, 2 active), bits 8–31 generation |
/// | 4 | 4 | pid, i32 |
/// | 8 | 8 | opened at, u64 ns since 1970 |
///
/// An entry is claimed by a CAS from (g, free) to (g + 1, claiming) that
/// writes the pid in the same 8 bytes (`SlotClaim`), filled in, then
/// published as (g + 1, active); it is freed by a CAS from (g, active) to
/// (g, free). A claim whose process died, or an undefined state, is freed
/// by `SlotClaim.reclaimAbandoned`. The generation makes a reclaimer's CAS fail
/// when the entry was freed and claimed again since it looked at it.
enum SessionEntryLayout {
    static let size = 16
    static let stateOffset = 0
    static let pidOffset = 4
    static let openedAtOffset = 8
}

/// One slot of the lock file's reader table (N slots of 128 bytes at offset
/// 4096): a pin on a version, with who holds it and why.
///
/// | offset | size | field |
/// | ---: | ---: | --- |
/// | 0 | 4 | state word, u32 (atomic): bits 0–7 state (0 free, 1 claiming, 2 active), bits 8–31 generation |
/// | 4 | 4 | pid, i32 |
/// | 8 | 8 | thread id (`gettid`), i64 |
/// | 16 | 8 | pinned version, u64 (atomic) |
/// | 24 | 8 | pinned since, u64 ns since 1970 |
/// | 32 | 8 | reserved, zero (layout 2 counted frozen objects here; layout 3 in the stripes after the table, see `LockFileLayout`) |
/// | 40 | 1 | kind, u8 (`PinKind` raw value) |
/// | 41 | 23 | reserved, zero |
/// | 64 | 64 | label, UTF-8, NUL padded (no NUL when exactly 64 bytes) |
///
/// Claimed, published and freed like a session entry (see
/// `SessionEntryLayout`). A process killed between its claiming CAS and its
/// publishing store leaves the slot in `claiming` under its own pid (the
/// claim swaps state and pid together, `SlotClaim`); such a slot, and one in
/// an undefined state, is freed when the table is full, like a stale pin.
enum ReaderSlotLayout {
    static let size = 128
    static let stateOffset = 0
    static let pidOffset = 4
    static let threadIDOffset = 8
    static let versionOffset = 16
    static let sinceOffset = 24
    /// Bytes 32…39, reserved since layout 3.
    static let reservedOffset = 32
    static let kindOffset = 40
    static let labelOffset = 64
    static let labelCapacity = 64
}

/// The byte layout of `<database path>.lock`, the small file every process
/// that has a database open maps `MAP_SHARED`. All integers are
/// little-endian (the file is host-local: its locks and futex words only
/// mean something to processes on the same machine).
///
/// Header (4096 bytes):
///
/// | offset | size | field |
/// | ---: | ---: | --- |
/// | 0 | 8 | magic, ASCII `FIRNLOCK` |
/// | 8 | 4 | layout version, u32 (= 4) |
/// | 12 | 4 | reader slot count N, u32 (1…65536) |
/// | 16 | 8 | latest published version, u64 (atomic) |
/// | 24 | 4 | change counter, u32 (atomic; the futex word waiters sleep on) |
/// | 28 | 4 | session entry count, u32 (= 128) |
/// | 32 | 8 | data file `st_dev`, u64 (0 = not yet known) |
/// | 40 | 8 | data file `st_ino`, u64 (0 = not yet known) |
/// | 48 | 4 | writer pid, i32 (atomic; 0 = unlocked) |
/// | 52 | 4 | writer thread id, i32 (atomic; 0 = unlocked, or held by a task or handed over) |
/// | 56 | 8 | writer since, u64 ns since 1970 (atomic) |
/// | 64 | 4 | writer release counter, u32 (atomic; the futex word writers wait on; +1 before each release and +1 after it) |
/// | 68 | 4 | writer waiters, u32 (atomic; threads about to sleep or sleeping on the writer release counter: a release wakes only while it is not 0) |
/// | 72 | 8 | durable version, u64 (atomic; the newest version known to survive power loss; 0 = not known yet) |
/// | 80 | 4 | change waiters, u32 (atomic; the same for the change counter: a publication wakes only while it is not 0) |
/// | 84 | 44 | reserved, zero |
/// | 128 | 2048 | session table: 128 entries of 16 bytes (see `SessionEntryLayout`) |
/// | 2176 | 1920 | reserved, zero |
/// | 4096 | N × 128 | reader table: N slots of 128 bytes (see `ReaderSlotLayout`) |
/// | 4096 + N × 128 | 8 × R | frozen-object stripes 0…7: stripe s holds N counters of 8 bytes (u64, atomic add of two's complement deltas), one per slot, in a region of R = N × 8 bytes rounded up to 64 |
///
/// A slot's frozen-object count is the wrapping sum of its counters in the
/// 8 stripes. Each thread adds to one stripe: threads reading frozen
/// objects of one pin at once then write different cache lines (and none
/// of the reader table's), where one counter bounced its line between them
/// on every object made and released.
///
/// The file is `4096 + N × 128 + 8 × R` bytes (28 416 for the default 126 slots).
///
/// Byte-range locks (OFD, per open file description) beyond the end of the
/// file carry liveness, not data:
///
/// | byte | lock | meaning |
/// | ---: | --- | --- |
/// | 0 | read by every open `LockFile`; write = exclusive session | session lock |
/// | 1 | write while (re)initializing or registering | init lock |
/// | 2 | write by the writer | writer lock |
/// | 2³² + pid | read by every open `LockFile` of process pid | liveness of pid |
///
/// A slot or session entry whose pid is not ours is stale when nobody holds a
/// lock on its liveness byte.
package enum LockFileLayout {
    package static let magic: [UInt8] = Array("FIRNLOCK".utf8)
    /// 4: waiter counts beside the writer release and change counters (3
    /// woke on every release and publication; its waiters would not be
    /// counted, so a layout 4 releaser could leave them asleep until their
    /// retry). 3: frozen-object counts are striped (2 had one counter per
    /// slot; 1 had a pthread mutex for the writer lock).
    package static let layoutVersion: UInt32 = 4

    package static let magicOffset = 0
    package static let layoutVersionOffset = 8
    package static let readerSlotCountOffset = 12
    package static let latestVersionOffset = 16
    package static let changeCounterOffset = 24
    package static let sessionEntryCountOffset = 28
    package static let dataFileDeviceOffset = 32
    package static let dataFileInodeOffset = 40
    package static let writerPIDOffset = 48
    package static let writerThreadOffset = 52
    package static let writerSinceOffset = 56
    package static let writerReleaseCounterOffset = 64
    /// Threads waiting on the writer release counter (4: a release skips
    /// the futex wake, a system call, while nobody waits).
    package static let writerWaitersOffset = 68
    /// Threads waiting on the change counter (4: likewise for publications).
    package static let changeWaitersOffset = 80
    /// The durable version (grouped commits): in the header's reserved
    /// space, zero in a file made before it existed, so the layout version
    /// stays 2 (0 reads as "not known yet").
    package static let durableVersionOffset = 72
    package static let sessionTableOffset = 128
    package static let sessionEntryCount = 128
    package static let readerTableOffset = 4096

    package static let defaultReaderSlots = 126
    package static let maximumReaderSlots = 65536

    /// OFD lock byte held for read by every open `LockFile`; write = exclusive.
    package static let sessionLockByte: Int64 = 0
    /// OFD lock byte held for write while a process validates or initializes.
    package static let initLockByte: Int64 = 1
    /// OFD lock byte held for write by the one writer.
    package static let writerLockByte: Int64 = 2
    /// The liveness byte of process pid is `livenessBase + pid`.
    package static let livenessBase: Int64 = 1 << 32

    /// How many counters each slot's frozen-object count is spread over.
    package static let frozenObjectStripes = 8

    /// The bytes of one stripe region: a counter per slot, whole cache lines.
    static func stripeRegionSize(readerSlots: Int) -> Int {
        (readerSlots * 8 + 63) / 64 * 64
    }

    /// The size of a lock file with `readerSlots` slots.
    package static func fileSize(readerSlots: Int) -> Int {
        readerTableOffset + readerSlots * ReaderSlotLayout.size
            + frozenObjectStripes * stripeRegionSize(readerSlots: readerSlots)
    }

    /// The offset of slot `index`'s frozen-object counter in `stripe`
    /// (0…`frozenObjectStripes` − 1) of a file with `readerSlots` slots.
    static func frozenObjectsOffset(slot index: Int, stripe: Int, readerSlots: Int) -> Int {
        readerTableOffset + readerSlots * ReaderSlotLayout.size
            + stripe * stripeRegionSize(readerSlots: readerSlots) + index * 8
    }

    /// The offset of reader slot `index`.
    static func slotOffset(_ index: Int) -> Int {
        readerTableOffset + index * ReaderSlotLayout.size
    }

    /// The offset of session entry `index`.
    static func sessionEntryOffset(_ index: Int) -> Int {
        sessionTableOffset + index * SessionEntryLayout.size
    }
}

/// What a write transaction that appended a frame leaves for the store's
/// next one (docs/COMMIT-PATH.md, "The commit log"): the slots as it read
/// them, the checkpoint, and its appender, which knows where the next frame
/// goes. The next transaction takes it instead of reading both slots and
/// scanning the region again, but only when its writer lease follows this
/// release directly (no other holder of the lock, here or in another
/// process, came in between: nothing else can have written a record or a
/// frame) and the published version is still this frame's. A snapshot of
/// that frame's version takes its link, or else its slots
/// (`Store.snapshot(of:pin:)`): frames write no record, so they lead there
/// whatever came after.
///
/// A class: each commit hands it from the store's lock to the next
/// transaction, and copying it as a struct (its slots, their bytes, the
/// record, three references) cost a grouped commit more than the one
/// allocation (profiled).
final class LogWriterCache {
    /// The release that left it (`LockFile.unlockWriter`).
    let releaseMark: UInt32
    /// The frame's version, which the transaction published.
    let version: UInt64
    let slots: CommitSlots
    let slotBytes: [[UInt8]]
    /// The checkpoint whose region holds the frame.
    let record: CommitRecord
    let appender: LogAppender
    /// The frame's link as the store's chain took it from the appender
    /// (`LogChain.appended`); nil when the chain reads it from the file.
    let link: LogOverlayVersion?

    init(releaseMark: UInt32, version: UInt64, slots: CommitSlots, slotBytes: [[UInt8]], record: CommitRecord,
         appender: LogAppender, link: LogOverlayVersion?) {
        self.releaseMark = releaseMark
        self.version = version
        self.slots = slots
        self.slotBytes = slotBytes
        self.record = record
        self.appender = appender
        self.link = link
    }
}

/// One active reader slot as `LockFile.pins()` reports it: who pins which
/// version, why, since when, and whether its process is gone (stale).
public struct PinRecord: Codable, Sendable, Equatable {
    /// The reader slot's index.
    public let slot: Int
    public let pid: Int32
    /// The kernel thread id (`gettid`) that claimed the pin.
    public let threadID: Int64
    /// The pinned version.
    public let version: UInt64
    /// Why it is pinned; nil when the slot's kind byte (`rawKind`) is not a
    /// known `PinKind` (written by a newer Firn, or damaged).
    public let kind: PinKind?
    /// The kind byte as stored.
    public let rawKind: UInt8
    /// When the pin was claimed: wall clock, nanoseconds since 1970.
    public let sinceNanoseconds: UInt64
    /// Frozen objects cached on this pin.
    public let frozenObjects: UInt64
    /// The label the pinner gave (decoded leniently: invalid UTF-8 becomes U+FFFD).
    public let label: String
    /// True when the pinning process no longer has the database open.
    public let stale: Bool

    package init(slot: Int, pid: Int32, threadID: Int64, version: UInt64, kind: PinKind?,
                rawKind: UInt8, sinceNanoseconds: UInt64, frozenObjects: UInt64,
                label: String, stale: Bool) {
        self.slot = slot
        self.pid = pid
        self.threadID = threadID
        self.version = version
        self.kind = kind
        self.rawKind = rawKind
        self.sinceNanoseconds = sinceNanoseconds
        self.frozenObjects = frozenObjects
        self.label = label
        self.stale = stale
    }
}

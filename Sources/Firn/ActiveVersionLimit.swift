import FirnCore

/// `Configuration.maximumNumberOfActiveVersions`: the distinct versions the
/// file has pinned, by every live process, read from the lock file's reader
/// table. Frozen values of one version share one pin, and pins on one
/// version count once, whatever their kind. Checked before an operation
/// pins a version (so a refused operation changes nothing), not after.
enum ActiveVersionLimit {
    /// Throws `.tooManyActiveVersions` when pinning `version` would leave
    /// more distinct versions pinned than `limit`. `own` is the slot of the
    /// pin the operation sets or moves (an instance's new pin, a writer's
    /// read pin, which its commit moves to the new version): it is left out
    /// of the count, the version it gets is counted instead. Pinning a
    /// version someone else pins adds none and is never refused (a freeze, a
    /// reference, an instance on the version others read), even when other
    /// processes went past the limit already.
    static func check(
        _ store: Store, limit: UInt?, pinning version: UInt64, own: Int? = nil, operation: String
    ) throws(DatabaseError) {
        guard let limit, let lockFile = store.lockFile else { return }
        let pins = lockFile.pins().filter { !$0.stale }
        var versions = Set(pins.filter { $0.slot != own }.map(\.version))
        guard versions.insert(version).inserted, versions.count > Int(clamping: limit) else { return }
        throw refusal(operation, limit: limit, versions: versions, pins: pins)
    }

    /// For a write, as Realm counts: the distinct versions pinned when it
    /// begins — the writer's own read pin on `reading` (its base) included,
    /// the version its commit will make not — more than `limit` throw.
    /// Realm refuses when "Number of active versions (N) … exceeded the
    /// limit"; counting the version to come refused one write earlier.
    static func checkWrite(_ store: Store, limit: UInt?, reading version: UInt64) throws(DatabaseError) {
        guard let limit, let lockFile = store.lockFile else { return }
        let pins = lockFile.pins().filter { !$0.stale }
        var versions = Set(pins.map(\.version))
        versions.insert(version)
        guard versions.count > Int(clamping: limit) else { return }
        throw refusal("beginWrite", limit: limit, versions: versions, pins: pins)
    }

    /// The error listing the versions and every live pin, as of now.
    private static func refusal(_ operation: String, limit: UInt, versions: Set<UInt64>, pins: [PinRecord]) -> DatabaseError {
        .tooManyActiveVersions(
            operation: operation, limit: limit, versions: versions.sorted(),
            pins: pins.sorted { ($0.version, $0.slot) < ($1.version, $1.slot) }, checkedAtNanoseconds: wallClockNanoseconds())
    }

    /// The error's text: what was refused, then one line per pin saying who
    /// holds it (process, thread, kind, label) and for how long.
    static func describe(operation: String, limit: UInt, versions: [UInt64], pins: [PinRecord], now: UInt64) -> String {
        let list = versions.map(String.init).joined(separator: ", ")
        var text = (operation == "beginWrite" ? "beginWrite found \(versions.count) versions pinned (\(list)), "
                                              : "\(operation) would leave \(versions.count) versions pinned (\(list)), ")
            + "more than maximumNumberOfActiveVersions (\(limit)); release frozen values and thread-safe references, "
            + "or refresh the instances reading old versions. Pins:"
        for pin in pins {
            let kind = pin.kind?.description ?? "kind \(pin.rawKind)"
            let thread = pin.threadID == 0 ? "no thread" : "thread \(pin.threadID)"
            let frozen = pin.frozenObjects > 0 ? ", \(pin.frozenObjects) frozen objects" : ""
            text += "\n  version \(pin.version): pid \(pin.pid), \(thread), \(kind) \"\(pin.label)\"\(frozen), held \(age(since: pin.sinceNanoseconds, now: now))"
        }
        return text
    }

    /// "2.4 s", "0.0 s" for a clock that went back.
    static func age(since: UInt64, now: UInt64) -> String {
        let tenths = (now > since ? now - since : 0) / 100_000_000
        return "\(tenths / 10).\(tenths % 10) s"
    }
}

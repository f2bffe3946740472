import FirnCore

/// `Configuration.shouldCompactOnLaunch`: asked once per first open of a
/// file in this process, with the file's size and the bytes its current
/// version uses (pages reachable from it, the commit slots included).
enum CompactOnLaunch {
    /// True when the file was compacted (the store must be opened again).
    static func run(
        _ store: Store, asking shouldCompact: (_ totalBytes: UInt64, _ usedBytes: UInt64) -> Bool
    ) throws(FirnError) -> Bool {
        let usage: SpaceUsage
        do {
            let snapshot = try store.snapshot(kind: .compact, label: "shouldCompactOnLaunch")
            defer { snapshot.close() }
            usage = try snapshot.spaceUsage(pinnedVersions: [])
        }
        guard shouldCompact(usage.fileBytes, usage.liveBytes) else { return false }
        return try store.compactInPlaceIfAlone() != nil
    }
}

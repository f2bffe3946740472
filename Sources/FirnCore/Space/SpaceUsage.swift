/// Where a version's file space goes: pages in use, free pages, and
/// retired pages, split by who still needs them — each pinned version's
/// pages that only it holds, pages several pins share, and pages that only
/// the versions in the two commit slots see (free again within two commits).
public struct SpaceUsage: Sendable, Codable, Equatable {
    public var version: UInt64
    public var pageSize: Int
    public var fileBytes: UInt64
    public var logicalPages: UInt64
    public var livePages: UInt64
    public var freePages: UInt64
    public var retiredPages: UInt64
    /// Retired pages at least one pinned version sees.
    public var heldByPinsPages: UInt64
    /// Retired pages that no pin sees (retired by the last two commits).
    public var awaitingReclaimPages: UInt64
    /// For each pinned version, the pages only it holds (freed when it is released).
    public var retainedByPin: [UInt64: UInt64]
    /// Retired pages that two or more pinned versions see.
    public var sharedByPinsPages: UInt64

    public var liveBytes: UInt64 { livePages * UInt64(pageSize) }
    /// Free pages plus file space past the last page in use.
    public var freeBytes: UInt64 { freePages * UInt64(pageSize) + (fileBytes - min(fileBytes, logicalPages * UInt64(pageSize))) }
    public var pinnedBytes: UInt64 { heldByPinsPages * UInt64(pageSize) }
    public func retainedBytes(byPinAt version: UInt64) -> UInt64 { (retainedByPin[version] ?? 0) * UInt64(pageSize) }
}

extension Snapshot {
    /// Accounts for every page of the file at this version, given the
    /// versions pinned now (`LockFile.livePinnedVersions()`). Reads the
    /// space tree once; cost grows with the retired pages, not the file.
    public func spaceUsage(pinnedVersions: [UInt64]) throws(FirnError) -> SpaceUsage {
        guard let record = info.commitRecord else {
            throw FirnError.invalidArgument("\(store.path): space accounting needs a version from a commit slot")
        }
        let pins = Array(Set(pinnedVersions)).sorted()
        var usage = SpaceUsage(
            version: version, pageSize: store.pageSize, fileBytes: try store.io.size(),
            logicalPages: record.logicalPageCount, livePages: 0, freePages: 0, retiredPages: 0,
            heldByPinsPages: 0, awaitingReclaimPages: 0, retainedByPin: [:], sharedByPinsPages: 0)
        do {
            try forEachSpaceEntry { (decoded, _, _) throws(FirnError) in
                switch decoded {
                case .free?:
                    usage.freePages += 1
                case let .retired(death, birth, _)?:
                    usage.retiredPages += 1
                    // Pins in [birth, death-1] see the page.
                    var low = 0, high = pins.count
                    while low < high {
                        let mid = (low + high) >> 1
                        if pins[mid] < birth { low = mid + 1 } else { high = mid }
                    }
                    var holders: [UInt64] = []
                    var i = low
                    while i < pins.count, pins[i] < death, holders.count < 2 {
                        holders.append(pins[i])
                        i += 1
                    }
                    switch holders.count {
                    case 0: usage.awaitingReclaimPages += 1
                    case 1:
                        usage.heldByPinsPages += 1
                        usage.retainedByPin[holders[0], default: 0] += 1
                    default:
                        usage.heldByPinsPages += 1
                        usage.sharedByPinsPages += 1
                    }
                default:
                    break
                }
            }
        } catch {
            throw error.located(in: store.path, version: version)
        }
        usage.livePages = usage.logicalPages - min(usage.logicalPages, usage.freePages + usage.retiredPages)
        return usage
    }
}

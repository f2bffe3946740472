/// Where a version's file space goes: pages in use, free pages, and
/// retired pages, split by who still needs them — each pinned version's
/// pages that only it holds, pages several pins share, and pages that only
/// the versions in the two commit slots see (free again within two commits).
package struct SpaceUsage: Sendable, Codable, Equatable {
    package var version: UInt64
    package var pageSize: Int
    package var fileBytes: UInt64
    package var logicalPages: UInt64
    package var livePages: UInt64
    package var freePages: UInt64
    package var retiredPages: UInt64
    /// Retired pages at least one pinned version sees.
    package var heldByPinsPages: UInt64
    /// Retired pages that no pin sees (retired by the last two commits).
    package var awaitingReclaimPages: UInt64
    /// For each pinned version, the pages only it holds (freed when it is released).
    package var retainedByPin: [UInt64: UInt64]
    /// Retired pages that two or more pinned versions see.
    package var sharedByPinsPages: UInt64
    /// Of `awaitingReclaimPages`, those the next commit that reclaims
    /// space frees (on the commit log, the next checkpoint): retired by a
    /// version no later than the previous slot's. The rest wait one more.
    package var freedByNextCommitPages: UInt64 = 0
    /// On the commit log, while the version read is a frame and when asked
    /// for (`forecastingCheckpoint`): what the next checkpoint replaces and
    /// which pins will hold it then.
    package var nextCheckpoint: NextCheckpoint?

    /// What the next checkpoint of the current log epoch takes from the
    /// pages the epoch stands on (`CheckpointForecast`), and who will hold
    /// them: a pin on a version of the epoch holds nothing until then.
    package struct NextCheckpoint: Sendable, Codable, Equatable {
        /// The checkpoint the frames stand on, and how many frames since.
        package var checkpoint: UInt64
        package var frames: UInt64
        /// Pages it replaces (at least), of them the log region's.
        package var replacedPages: UInt64
        package var regionPages: UInt64
        /// Of those, pages a live pin will see (kept), the rest reusable
        /// after the checkpoint after it.
        package var heldByPinsPages: UInt64
        /// For each pinned version, the pages of those only it will see.
        package var retainedByPin: [UInt64: UInt64]
        package var sharedByPinsPages: UInt64
    }

    package var liveBytes: UInt64 { livePages * UInt64(pageSize) }
    /// Free pages plus file space past the last page in use.
    package var freeBytes: UInt64 { freePages * UInt64(pageSize) + (fileBytes - min(fileBytes, logicalPages * UInt64(pageSize))) }
    package var pinnedBytes: UInt64 { heldByPinsPages * UInt64(pageSize) }
    package func retainedBytes(byPinAt version: UInt64) -> UInt64 { (retainedByPin[version] ?? 0) * UInt64(pageSize) }
    /// Bytes the pin at `version` will hold alone once the next checkpoint
    /// has run: what it holds now plus its share of what that checkpoint
    /// replaces.
    package func retainedBytesAfterCheckpoint(byPinAt version: UInt64) -> UInt64 {
        retainedBytes(byPinAt: version) + (nextCheckpoint?.retainedByPin[version] ?? 0) * UInt64(pageSize)
    }
    package var freedByNextCommitBytes: UInt64 { freedByNextCommitPages * UInt64(pageSize) }

    /// Pins in `[birth, death − 1]`, at most two (one alone holds the page).
    static func holders(birth: UInt64, death: UInt64, pins: [UInt64]) -> [UInt64] {
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
        return holders
    }
}

extension Snapshot {
    /// Accounts for every page of the file at this version, given the
    /// versions pinned now (`LockFile.livePinnedVersions()`). Reads the
    /// space tree once; cost grows with the retired pages, not the file.
    /// `slots` as the caller read them (read here when nil) date the
    /// batches the next commit frees. With `forecastingCheckpoint`, also
    /// what the next checkpoint replaces (`nextCheckpoint`): a walk of the
    /// paths to every key the log's frames change, which the reports
    /// (`firn pins`, `info`) want and compaction does not.
    package func spaceUsage(pinnedVersions: [UInt64], slots: CommitSlots? = nil,
                           forecastingCheckpoint: Bool = false) throws(FirnError) -> SpaceUsage {
        guard let record = info.commitRecord else {
            throw FirnError.invalidArgument("\(store.path): space accounting needs a version from a commit slot")
        }
        let pins = Array(Set(pinnedVersions)).sorted()
        // Batches retired by then are reclaimed by the next commit that
        // reclaims (FORMAT.md 7: once the version before their death has
        // left the slots).
        let previousSlot: UInt64?
        if let slots { previousSlot = slots.previous?.version } else { previousSlot = try store.readSlots().previous?.version }
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
                    let holders = SpaceUsage.holders(birth: birth, death: death, pins: pins)
                    switch holders.count {
                    case 0:
                        usage.awaitingReclaimPages += 1
                        if let previousSlot, death <= previousSlot { usage.freedByNextCommitPages += 1 }
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
        if forecastingCheckpoint, let forecast = try checkpointForecast() {
            // The checkpoint after the version read: pins up to it see
            // each page from its birth on.
            let death = version + 1
            var next = SpaceUsage.NextCheckpoint(
                checkpoint: forecast.checkpoint, frames: forecast.frames, replacedPages: UInt64(forecast.pages.count),
                regionPages: forecast.regionPages, heldByPinsPages: 0, retainedByPin: [:], sharedByPinsPages: 0)
            for page in forecast.pages {
                let holders = SpaceUsage.holders(birth: page.birth, death: death, pins: pins)
                guard let first = holders.first else { continue }
                next.heldByPinsPages += 1
                if holders.count == 1 { next.retainedByPin[first, default: 0] += 1 } else { next.sharedByPinsPages += 1 }
            }
            usage.nextCheckpoint = next
        }
        return usage
    }
}

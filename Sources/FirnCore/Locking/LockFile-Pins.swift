#if canImport(Glibc)
import Glibc
#endif
import CFirnShims

/// The reader table: pins on versions, so the writer knows which versions
/// are still readable and whose they are. A slot is claimed by CAS (free →
/// claiming, next generation), filled in, then published active; released
/// by CAS back to free. Slots of processes that are gone (their liveness
/// byte is no longer locked) are stale and reclaimed by CAS.
///
/// The engine's pin protocol: `claimPin(version: latestVersion, …)`, read
/// `latestVersion` again, `setPinVersion` to it, and repeat until it stays
/// the same; the writer, after publishing, reads `livePinnedVersions()`.
/// Slots still being claimed are not counted: their owner re-reads the
/// latest version after publishing, which is what makes this safe.
extension LockFile {
    /// Claims a reader slot pinning `version`. `label` is cut to 64 UTF-8
    /// bytes on a character boundary. When the table is full, stale slots
    /// are reclaimed first; throws `.busy` when it is full of live pins.
    package func claimPin(version: UInt64, kind: PinKind, label: String) throws(FirnError) -> PinSlot {
        try ensureOpen()
        let labelBytes = PinLabel.encode(label)
        if let slot = claimFreeSlot(version: version, kind: kind, label: labelBytes) { return slot }
        _ = reclaimStalePins()
        if let slot = claimFreeSlot(version: version, kind: kind, label: labelBytes) { return slot }
        var counts: [Int32: Int] = [:]
        for record in pins() { counts[record.pid, default: 0] += 1 }
        let holders = counts.sorted { $0.key < $1.key }.map { "pid \($0.key): \($0.value)" }.joined(separator: ", ")
        throw FirnError.busy(
            path: path,
            detail: "reader table full (\(readerSlotCount) slots; pins held by \(holders.isEmpty ? "no live process" : holders)); "
                + "close read transactions or reopen the database with more reader slots")
    }

    /// Moves our pin to `version` (a later one, in the pin protocol).
    package func setPinVersion(_ slot: PinSlot, _ version: UInt64) {
        guard let offset = ownedSlotOffset(slot) else { return }
        mapping.store64(offset + ReaderSlotLayout.versionOffset, version)
    }

    /// Releases our pin. Releasing twice, or after close, does nothing.
    package func releasePin(_ slot: PinSlot) {
        let owned = local.withLock { state -> Bool in
            guard !state.closed else { return false }
            return state.pins.remove(slot) != nil
        }
        if owned { freeSlot(slot) }
    }

    /// Sets the pin's holder thread and label. A reader listing pins at the
    /// same moment may see the old label or the new one (the label is
    /// informational; it is written after the thread id).
    package func setPinHolder(_ slot: PinSlot, threadID: Int64, label: String) {
        guard let offset = ownedSlotOffset(slot) else { return }
        mapping.storeInt64(offset + ReaderSlotLayout.threadIDOffset, threadID)
        mapping.write(PinLabel.encode(label), at: offset + ReaderSlotLayout.labelOffset, paddedTo: ReaderSlotLayout.labelCapacity)
    }

    /// The pin's frozen-object count as a handle that adds without looking
    /// anything up (see `FrozenObjectCounter`).
    package func frozenObjectCounter(_ slot: PinSlot) -> FrozenObjectCounter {
        FrozenObjectCounter(mapping: mapping, slot: slot, readerSlots: readerSlotCount)
    }

    /// Every active slot, with `stale` set for processes that are gone.
    package func pins() -> [PinRecord] {
        guard !isClosed else { return [] }
        var probe = LivenessProbe(fd: fd, ownPID: ownPID)
        var records: [PinRecord] = []
        for index in 0..<readerSlotCount {
            if let record = readSlot(index, probe: &probe)?.record { records.append(record) }
        }
        return records
    }

    /// Frees the slots of processes that are gone, and their session
    /// entries; returns the pins it freed. Slots a claim left behind
    /// (`SlotClaim.reclaimAbandoned`: claimed by a process that died before
    /// publishing, or in an undefined state) are freed too; they pinned
    /// nothing, so they are not among the pins returned.
    package func reclaimStalePins() -> [PinRecord] {
        guard !isClosed else { return [] }
        var probe = LivenessProbe(fd: fd, ownPID: ownPID)
        var cleared: [PinRecord] = []
        for index in 0..<readerSlotCount {
            guard let (record, word) = readSlot(index, probe: &probe) else {
                let offset = LockFileLayout.slotOffset(index) + ReaderSlotLayout.stateOffset
                _ = SlotClaim.reclaimAbandoned(mapping, at: offset, probe: &probe)
                continue
            }
            if record.stale, freeStaleSlot(index, word) { cleared.append(record) }
        }
        Self.reclaimStaleSessions(mapping, probe: &probe)
        return cleared
    }

    /// The distinct versions pinned by live processes, ascending. Reclaims
    /// stale slots on the way. One pass; one liveness probe per foreign pid.
    package func livePinnedVersions() -> [UInt64] {
        guard !isClosed else { return [] }
        var probe = LivenessProbe(fd: fd, ownPID: ownPID)
        var versions: [UInt64] = []
        for index in 0..<readerSlotCount {
            let offset = LockFileLayout.slotOffset(index)
            let word = SlotStateWord(raw: mapping.load32(offset + ReaderSlotLayout.stateOffset))
            guard word.isActive else { continue }
            let pid = mapping.loadInt32(offset + ReaderSlotLayout.pidOffset)
            if probe.isAlive(pid) {
                versions.append(mapping.load64(offset + ReaderSlotLayout.versionOffset))
            } else {
                _ = freeStaleSlot(index, word)
            }
        }
        versions.sort()
        var unique: [UInt64] = []
        for version in versions where unique.last != version { unique.append(version) }
        return unique
    }

    // MARK: Slot operations

    private func claimFreeSlot(version: UInt64, kind: PinKind, label: [UInt8]) -> PinSlot? {
        for index in 0..<readerSlotCount {
            let offset = LockFileLayout.slotOffset(index)
            // With our pid in the same swap (`SlotClaim`).
            guard let claimed = SlotClaim.claim(mapping, at: offset + ReaderSlotLayout.stateOffset, ownPID: ownPID) else {
                continue
            }
            mapping.storeInt64(offset + ReaderSlotLayout.threadIDOffset, firn_gettid())
            mapping.store64(offset + ReaderSlotLayout.versionOffset, version)
            mapping.store64(offset + ReaderSlotLayout.sinceOffset, wallClockNanoseconds())
            for stripe in 0..<LockFileLayout.frozenObjectStripes {
                mapping.store64(LockFileLayout.frozenObjectsOffset(slot: index, stripe: stripe, readerSlots: readerSlotCount), 0)
            }
            mapping.zero(offset + ReaderSlotLayout.reservedOffset, count: ReaderSlotLayout.labelOffset - ReaderSlotLayout.reservedOffset)
            mapping.storeByte(offset + ReaderSlotLayout.kindOffset, kind.rawValue)
            mapping.write(label, at: offset + ReaderSlotLayout.labelOffset, paddedTo: ReaderSlotLayout.labelCapacity)
            // The seq-cst store publishes every field written above.
            mapping.store32(offset + ReaderSlotLayout.stateOffset, claimed.with(state: SlotStateWord.active).raw)
            let slot = PinSlot(index: index, generation: claimed.generation)
            local.withLock { _ = $0.pins.insert(slot) }
            return slot
        }
        return nil
    }

    /// The offset of `slot` when it is ours, still active in its generation.
    private func ownedSlotOffset(_ slot: PinSlot) -> Int? {
        guard slot.index >= 0, slot.index < readerSlotCount,
              local.withLock({ !$0.closed && $0.pins.contains(slot) }) else { return nil }
        let offset = LockFileLayout.slotOffset(slot.index)
        let word = SlotStateWord(raw: mapping.load32(offset + ReaderSlotLayout.stateOffset))
        guard word == SlotStateWord(state: SlotStateWord.active, generation: slot.generation) else { return nil }
        return offset
    }

    func freeSlot(_ slot: PinSlot) {
        guard slot.index >= 0, slot.index < readerSlotCount else { return }
        let offset = LockFileLayout.slotOffset(slot.index)
        let active = SlotStateWord(state: SlotStateWord.active, generation: slot.generation)
        _ = mapping.cas32(offset + ReaderSlotLayout.stateOffset, expected: active.raw,
                          desired: active.with(state: SlotStateWord.free).raw)
    }

    /// Frees a slot seen stale in state `word`; fails harmlessly when it
    /// has changed hands since.
    private func freeStaleSlot(_ index: Int, _ word: SlotStateWord) -> Bool {
        let offset = LockFileLayout.slotOffset(index)
        return mapping.cas32(offset + ReaderSlotLayout.stateOffset, expected: word.raw,
                             desired: word.with(state: SlotStateWord.free).raw)
    }

    /// Decodes slot `index` when it is active and did not change while it
    /// was read; returns the record and the state word it was read under.
    private func readSlot(_ index: Int, probe: inout LivenessProbe) -> (record: PinRecord, word: SlotStateWord)? {
        let offset = LockFileLayout.slotOffset(index)
        let word = SlotStateWord(raw: mapping.load32(offset + ReaderSlotLayout.stateOffset))
        guard word.isActive else { return nil }
        let pid = mapping.loadInt32(offset + ReaderSlotLayout.pidOffset)
        let threadID = mapping.loadInt64(offset + ReaderSlotLayout.threadIDOffset)
        let version = mapping.load64(offset + ReaderSlotLayout.versionOffset)
        let since = mapping.load64(offset + ReaderSlotLayout.sinceOffset)
        var frozen: UInt64 = 0
        for stripe in 0..<LockFileLayout.frozenObjectStripes {
            frozen &+= mapping.load64(LockFileLayout.frozenObjectsOffset(slot: index, stripe: stripe, readerSlots: readerSlotCount))
        }
        let rawKind = mapping.loadByte(offset + ReaderSlotLayout.kindOffset)
        let label = PinLabel.decode(mapping.bytes(offset + ReaderSlotLayout.labelOffset,
                                                  count: ReaderSlotLayout.labelCapacity))
        guard mapping.load32(offset + ReaderSlotLayout.stateOffset) == word.raw else { return nil }
        let record = PinRecord(slot: index, pid: pid, threadID: threadID, version: version,
                               kind: PinKind(rawValue: rawKind), rawKind: rawKind, sinceNanoseconds: since,
                               frozenObjects: frozen, label: label, stale: !probe.isAlive(pid))
        return (record, word)
    }
}

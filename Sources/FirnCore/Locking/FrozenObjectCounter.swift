import CFirnShims

/// One pin's frozen-object count in the lock file, resolved once by its
/// holder: adding runs for every frozen object made and released, from many
/// threads at once, so it takes no lock, retains nothing and writes only
/// the calling thread's stripe (`LockFileLayout`); two threads reading
/// frozen results contended first on a lock, then on one counter's cache
/// line, for every object.
///
/// Valid while the snapshot it came from lives (`SnapshotShare` keeps
/// both): the snapshot's store keeps the lock file mapped, and its pin
/// keeps the slot from being freed or reused; the state word still proves
/// the slot is the pin's generation before each add.
package struct FrozenObjectCounter: Sendable {
    private let mapping: SharedMapping
    private let slot: PinSlot
    /// The slot's state word and its counter in stripe 0 (nil for a slot
    /// index outside the table: adding then does nothing), and the
    /// distance from one stripe's counter to the next.
    private let offsets: (state: Int, counter: Int)?
    private let stripeStride: Int

    init(mapping: SharedMapping, slot: PinSlot, readerSlots: Int) {
        self.mapping = mapping
        self.slot = slot
        stripeStride = LockFileLayout.stripeRegionSize(readerSlots: readerSlots)
        if slot.index >= 0, slot.index < readerSlots {
            offsets = (LockFileLayout.slotOffset(slot.index) + ReaderSlotLayout.stateOffset,
                       LockFileLayout.frozenObjectsOffset(slot: slot.index, stripe: 0, readerSlots: readerSlots))
        } else {
            offsets = nil
        }
    }

    /// Adds `delta` (which may be negative) to the count.
    package func add(_ delta: Int64) {
        guard let offsets else { return }
        guard SlotStateWord(raw: mapping.load32(offsets.state))
                == SlotStateWord(state: SlotStateWord.active, generation: slot.generation) else { return }
        let stripe = Int(firn_thread_stripe()) % LockFileLayout.frozenObjectStripes
        mapping.add64(offsets.counter + stripe * stripeStride, UInt64(bitPattern: delta))
    }
}

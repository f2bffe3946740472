/// A pin this process holds: the index of its reader slot and the slot's
/// generation when it was claimed, so a stale handle can never touch a slot
/// that has since been reused. Returned by `LockFile.claimPin`.
package struct PinSlot: Sendable, Hashable, CustomStringConvertible {
    /// The reader slot's index (0-based).
    package let index: Int
    let generation: UInt32

    init(index: Int, generation: UInt32) {
        self.index = index
        self.generation = generation
    }

    package var description: String { "slot \(index)" }
}

/// The u32 at the start of every reader slot and session entry: the state
/// in bits 0–7 (0 free, 1 claiming, 2 active) and a generation in bits
/// 8–31 that each claim increments, so that a compare-and-swap prepared
/// against an older occupant of the slot fails (no ABA).
struct SlotStateWord: Equatable {
    static let free: UInt32 = 0
    static let claiming: UInt32 = 1
    static let active: UInt32 = 2

    var raw: UInt32

    init(raw: UInt32) { self.raw = raw }

    init(state: UInt32, generation: UInt32) {
        raw = (generation & 0xFF_FFFF) << 8 | (state & 0xFF)
    }

    var state: UInt32 { raw & 0xFF }
    var generation: UInt32 { raw >> 8 }

    var isFree: Bool { state == Self.free }
    var isActive: Bool { state == Self.active }

    /// The word a claimer swaps in: claiming, next generation.
    var claimed: SlotStateWord { SlotStateWord(state: Self.claiming, generation: generation &+ 1) }
    /// The same generation in another state.
    func with(state: UInt32) -> SlotStateWord { SlotStateWord(state: state, generation: generation) }
}

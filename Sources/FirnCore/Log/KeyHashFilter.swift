/// The 64-bit hashes of the (tree, key) pairs an epoch's frames carry, in an
/// open-addressing table (`LogEpochShared.keyHashes`): a key whose hash is
/// absent is in no frame, so its lookup skips the overlay's runs. Equal
/// hashes only send a lookup to the runs, so a collision costs time, never
/// an answer.
///
/// It replaced a `Set<Int>` of `Hasher` values: SipHash over the tree's name
/// and the key, then again over the `Int` in the set, cost a grouped commit
/// about 3 % of its time (profiled). The hash here reads the key 8 bytes at
/// a time; the table's index is the hash itself.
struct KeyHashFilter {
    /// Stored hashes; 0 is an empty slot (a hash of 0 is stored as 1,
    /// `stored(_:)`).
    /// Empty until the first insert: most epochs' links are a reader's
    /// checkpoint, with no frame.
    private var slots: [UInt64] = []
    private(set) var count = 0

    /// A power of two; the table doubles when it is half full.
    static let initialSlots = 1024

    mutating func insert(_ hash: UInt64) {
        if (count + 1) * 2 > slots.count { grow() }
        let (index, found) = probe(hash)
        guard !found else { return }
        slots[index] = Self.stored(hash)
        count += 1
    }

    func contains(_ hash: UInt64) -> Bool {
        !slots.isEmpty && probe(hash).found
    }

    /// `hash` as a slot holds it: 0 marks an empty slot.
    private static func stored(_ hash: UInt64) -> UInt64 { hash == 0 ? 1 : hash }

    /// The slot holding `hash` (found), or the empty one where it would go.
    /// The table is never full (it doubles at half), so the probe ends.
    private func probe(_ hash: UInt64) -> (index: Int, found: Bool) {
        let stored = Self.stored(hash)
        let mask = slots.count - 1
        var index = Int(truncatingIfNeeded: stored) & mask
        while true {
            let slot = slots[index]
            if slot == stored { return (index, true) }
            if slot == 0 { return (index, false) }
            index = (index + 1) & mask
        }
    }

    private mutating func grow() {
        let old = slots
        slots = [UInt64](repeating: 0, count: max(Self.initialSlots, old.count * 2))
        count = 0
        for hash in old where hash != 0 { insert(hash) }
    }

    // MARK: hashing

    /// The hash of `key` in the tree whose seed is `seed` (`seed(_:)`).
    static func hash(_ key: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        var h = seed ^ (UInt64(truncatingIfNeeded: key.count) &* multiplierA)
        var offset = 0
        while offset + 8 <= key.count {
            h = mix(h ^ key.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        if offset < key.count {
            var tail: UInt64 = 0
            for i in offset..<key.count { tail |= UInt64(key[i]) << UInt64((i - offset) * 8) }
            h = mix(h ^ tail)
        }
        return finalize(h)
    }

    /// A tree's seed: its name hashed over this process's random seed
    /// (colliding keys cannot be chosen from outside the process).
    static func seed(_ tree: String) -> UInt64 {
        var name = tree
        return name.withUTF8 { hash(UnsafeRawBufferPointer($0), seed: processSeed) }
    }

    private static let processSeed = UInt64.random(in: .min ... .max)
    private static let multiplierA: UInt64 = 0x9E37_79B9_7F4A_7C15
    private static let multiplierB: UInt64 = 0xBF58_476D_1CE4_E5B9

    private static func mix(_ value: UInt64) -> UInt64 {
        let product = value &* multiplierB
        return (product ^ (product >> 31)) &* multiplierA
    }

    /// A 64-bit finalizer (splitmix64's), so the table's low bits, its
    /// index, depend on every bit of the key.
    private static func finalize(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

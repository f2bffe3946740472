/// Two bits per page recording what verification has seen it as, so a page
/// reached twice, both reached and free, or never accounted for is caught.
/// The open-time check (`NewestRecordCheck`) marks the pages it reads in
/// one, so its walk reads each page once.
/// Costs a quarter byte per page (64 KiB for a 1 GiB file of 4 KiB pages).
struct PageBitmap {
    enum Use: UInt8 {
        case unseen = 0
        case reachable = 1
        case free = 2
        case retired = 3
    }

    private var words: [UInt64]
    private(set) var count: UInt64

    init(pages: UInt64) {
        count = pages
        words = [UInt64](repeating: 0, count: Int((pages + 31) / 32))
    }

    subscript(page: UInt64) -> Use {
        get {
            let word = words[Int(page / 32)]
            return Use(rawValue: UInt8((word >> ((page % 32) * 2)) & 3)) ?? .unseen
        }
        set {
            let shift = (page % 32) * 2
            let i = Int(page / 32)
            words[i] = (words[i] & ~(3 << shift)) | (UInt64(newValue.rawValue) << shift)
        }
    }

    /// Marks in this map every page `other` marks (as `other` marks it)
    /// and returns the pages both had marked, in page order: the two halves
    /// of a two-core walk keep a map each, and a page both reached was
    /// reached twice (its mark here is kept).
    mutating func merge(_ other: PageBitmap) -> [UInt64] {
        var shared: [UInt64] = []
        for i in 0..<min(words.count, other.words.count) where other.words[i] != 0 {
            let mine = words[i], theirs = other.words[i]
            // A pair of bits is in use when either bit is set.
            let used = { (w: UInt64) in (w | (w >> 1)) & 0x5555_5555_5555_5555 }
            var both = used(mine) & used(theirs)
            while both != 0 {
                let bit = UInt64(both.trailingZeroBitCount)
                shared.append(UInt64(i) * 32 + bit / 2)
                both &= both - 1
            }
            // Keep this map's use of a shared page; take the other's elsewhere.
            let keepMine = used(mine) | (used(mine) << 1)
            words[i] = mine | (theirs & ~keepMine)
        }
        return shared
    }

    /// Covers at least `pages` pages, the new ones unseen (a subtree
    /// check's map grows with the image being written).
    mutating func grow(toPages pages: UInt64) {
        guard pages > count else { return }
        count = pages
        let needed = Int((pages + 31) / 32)
        if needed > words.count { words.append(contentsOf: repeatElement(0, count: needed - words.count)) }
    }

    /// Marks a page; returns what it was before.
    mutating func mark(_ page: UInt64, _ use: Use) -> Use {
        let before = self[page]
        if before == .unseen { self[page] = use }
        return before
    }
}

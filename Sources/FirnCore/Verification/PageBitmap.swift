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
    let count: UInt64

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

    /// Marks a page; returns what it was before.
    mutating func mark(_ page: UInt64, _ use: Use) -> Use {
        let before = self[page]
        if before == .unseen { self[page] = use }
        return before
    }
}

/// Reads the pages of one version with `pread` into a few buffers it owns,
/// for walks that read every page of a file once (`verify`).
///
/// Such a walk through the store's map kept the file resident in the
/// process: each fault maps the page cache's whole folio around the page
/// touched (up to 2 MiB with ext4's large folios, 64 KiB of fault-around
/// otherwise), so dropping the map's pages every few MiB read still left the
/// resident set growing with the file (250–310 MiB on a 2 GiB file), and
/// mapping and unmapping those folios took a third of verify's time.
/// Here memory is one read-ahead window and one page per frame in use.
///
/// Frames form a stack: `view` fills the next one, `release(to:)` gives
/// back every frame taken after a mark, so a view stays valid while its
/// caller holds the mark (a tree walk holds one frame per level).
/// Runs of pages in file order (the leaves a bulk load or a compaction
/// lays out one after the other) are read a window at a time.
final class PageReader {
    private let io: any FileIO
    let pageSize: Int
    /// Pages of the version read; a number at or past it is refused (it
    /// grows as a subtree check's image is written).
    var pageLimit: UInt64
    private let windowBase: UnsafeMutableRawPointer
    private let windowPages: UInt64
    private var windowFirst: UInt64 = 0
    private var windowCount: UInt64 = 0
    /// The page read last, and how many reads in a row asked for the page
    /// after the one before: a read past the window reads ahead twice that
    /// many pages (up to a window), so scattered pages cost one page each
    /// and runs grow to a window per read, as the kernel's read-ahead does.
    private var lastPage: UInt64 = 0
    private var run: UInt64 = 0
    private var frames: [UnsafeMutableRawPointer] = []
    private var used = 0
    /// Bytes copied from the file so far.
    private(set) var bytesRead: UInt64 = 0
    /// Where a page can be read in place, without a copy, while the views
    /// are in use (a `SubtreeChecker` reading the output's held buffers).
    var inPlace: ((UInt64) -> UnsafeRawPointer?)? = nil

    /// How many bytes one read-ahead reads.
    static let windowBytes = 256 << 10

    init(io: any FileIO, pageSize: Int, pageLimit: UInt64) {
        self.io = io
        self.pageSize = pageSize
        self.pageLimit = pageLimit
        windowPages = UInt64(max(1, Self.windowBytes / pageSize))
        windowBase = .allocate(byteCount: Int(windowPages) * pageSize, alignment: 4096)
    }

    deinit {
        windowBase.deallocate()
        for frame in frames { frame.deallocate() }
    }

    /// The frames in use: pass it to `release(to:)`.
    var mark: Int { used }

    /// Gives back the frames taken since `mark`; their views are then invalid.
    func release(to mark: Int) {
        precondition(mark >= 0 && mark <= used, "PageReader: release to an unknown mark")
        used = mark
    }

    /// Reads `page` into a new frame. Throws for a number outside the
    /// version's pages or past the file's end, and when the read fails.
    func view(_ page: UInt64) throws(FirnError) -> PageView {
        guard page >= 2, page < pageLimit else {
            throw FirnError.corrupt(path: io.path, page: page, version: nil,
                                    detail: "page number out of range (the version has pages 2..<\(pageLimit))")
        }
        if let inPlace, let bytes = inPlace(page) {
            return PageView(base: bytes, pageSize: pageSize, number: page)
        }
        if used == frames.count {
            frames.append(.allocate(byteCount: pageSize, alignment: 4096))
        }
        let frame = frames[used]
        run = page == lastPage &+ 1 ? run + 1 : 0
        if page >= windowFirst, page < windowFirst + windowCount {
            frame.copyMemory(from: windowBase + Int(page - windowFirst) * pageSize, byteCount: pageSize)
        } else if run > 0 {
            try fillWindow(from: page, pages: min(windowPages, run * 2))
            frame.copyMemory(from: windowBase, byteCount: pageSize)
        } else {
            let buffer = UnsafeMutableRawBufferPointer(start: frame, count: pageSize)
            let count = try io.read(into: buffer, at: page &* UInt64(pageSize))
            bytesRead &+= UInt64(count)
            guard count == pageSize else { throw beyondEnd(page) }
        }
        lastPage = page
        used += 1
        return PageView(base: UnsafeRawPointer(frame), pageSize: pageSize, number: page)
    }

    private func fillWindow(from page: UInt64, pages wanted: UInt64) throws(FirnError) {
        let pages = min(wanted, pageLimit - page)
        windowFirst = page
        windowCount = 0
        let buffer = UnsafeMutableRawBufferPointer(start: windowBase, count: Int(pages) * pageSize)
        let count = try io.read(into: buffer, at: page &* UInt64(pageSize))
        bytesRead &+= UInt64(count)
        windowCount = UInt64(count / pageSize)
        guard windowCount > 0 else { throw beyondEnd(page) }
    }

    private func beyondEnd(_ page: UInt64) -> FirnError {
        FirnError.corrupt(path: io.path, page: page, version: nil,
                          detail: "page lies beyond the end of the file (the version has pages 2..<\(pageLimit))")
    }
}

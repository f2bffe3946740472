/// Resolves page numbers of one version to views into the map, refusing
/// numbers outside the version's pages or the map: the single bounds check
/// every page read passes through.
struct PageSource {
    let map: Mapping
    let pageSize: Int
    /// Pages of the version being read (its logical page count).
    let pageLimit: UInt64
    /// When set, every reference followed is checked in full against the
    /// page it names (FORMAT.md §4: its number, its birth within `1 …` this
    /// version, its stored and computed checksum), so a damaged page is
    /// refused as it is read instead of copied on. The toolkit's reads
    /// (`StoreOptions.checksPages`) and every writer's reads of the pages it
    /// builds on set it; an app's reads check the birth alone (`verify`
    /// proves the rest) and pay no checksum per lookup.
    let checkedVersion: UInt64?

    init(map: Mapping, pageSize: Int, pageLimit: UInt64, checkedVersion: UInt64? = nil) {
        self.map = map
        self.pageSize = pageSize
        self.pageLimit = pageLimit
        self.checkedVersion = checkedVersion
    }

    @inline(__always)
    func view(_ page: UInt64) throws(FirnError) -> PageView {
        guard page >= 2, page < pageLimit else {
            throw FirnError.corrupt(
                path: "", page: page, version: nil,
                detail: "page number out of range (the version has pages 2..<\(pageLimit))")
        }
        let offset = Int(page) &* pageSize
        guard offset + pageSize <= map.length else {
            throw FirnError.corrupt(
                path: "", page: page, version: nil, detail: "page lies beyond the mapped file")
        }
        return PageView(base: map.base + offset, pageSize: pageSize, number: page)
    }

    /// A view of the page `ref` names, checked against the reference's birth
    /// (a cheap guard), and in full when `checkedVersion` is set.
    @inline(__always)
    func view(_ ref: PageRef, level: Int? = nil) throws(FirnError) -> PageView {
        try checked(try view(ref.page), against: ref, level: level)
    }

    /// `v` (the page `ref` names, bounds checked) checked against `ref` as
    /// `view(_:level:)` does: its birth, in full when `checkedVersion` is
    /// set, and its level.
    @inline(__always)
    private func checked(_ v: PageView, against ref: PageRef, level: Int?) throws(FirnError) -> PageView {
        if v.birth != ref.birth {
            throw v.corrupt("birth \(v.birth) does not match the reference's \(ref.birth) (lost or stale write)")
        }
        if let checkedVersion { try Self.check(v, against: ref, version: checkedVersion) }
        if let level, v.level != level {
            throw v.corrupt("level \(v.level) where the parent expects \(level)")
        }
        return v
    }

    /// The checks of FORMAT.md §4 a reader makes of each reference it
    /// follows, but the two that need the whole walk (`verify`'s: a birth no
    /// later than the parent's, no page reached twice). The page's type and
    /// level are checked where its cells are read (`checkTreePage`,
    /// `overflowPayload`).
    /// `computingChecksum` false skips only the computation over the
    /// contents, for a page the same pinned version's earlier pass proved.
    static func check(_ page: PageView, against ref: PageRef, version: UInt64, computingChecksum: Bool = true) throws(FirnError) {
        guard page.storedPageNumber == ref.page else {
            throw page.corrupt("page header says page \(page.storedPageNumber) (misdirected write)")
        }
        guard page.birth >= 1, page.birth <= version else {
            throw page.corrupt("birth \(page.birth) is outside 1…\(version), the version read")
        }
        guard page.storedChecksum == ref.checksum else {
            throw page.corrupt("checksum \(hex32(page.storedChecksum)) does not match the reference's \(hex32(ref.checksum))")
        }
        guard !computingChecksum || page.computeChecksum() == page.storedChecksum else {
            throw page.corrupt("page contents do not match their checksum (damaged page)")
        }
    }

    /// Looks `key` up in the on-disk subtree at `ref` (a page at `level`,
    /// nil for a root). Inline bytes point into the map.
    @inline(__always)
    func lookup(_ key: UnsafeRawBufferPointer, in ref: PageRef, level: Int? = nil) throws(FirnError) -> StoredValue? {
        var view = try self.view(ref, level: level)
        try view.checkTreePage(expectLeaf: nil)
        // The root's bounds are unknown; each child's are the separators
        // around it, which guide the search of its page (`KeyBounds`).
        var bounds = KeyBounds.unbounded
        var guess: Double? = nil
        while view.typeByte == PageType.branch.rawValue {
            let index = try view.branchSearch(key, guess: guess)
            let child = try view.branchChild(index)
            bounds = try bounds.child(index, of: view)
            guess = bounds.fraction(of: key)
            // Bounds first (no read), then the hint, then the header's checks.
            let page = try self.view(child.page)
            page.prefetchFirstProbes(around: guess)
            let next = try checked(page, against: child, level: view.level - 1)
            try next.checkTreePage(expectLeaf: nil)
            view = next
        }
        let (index, found) = try view.leafSearch(key, guess: guess)
        guard found else { return nil }
        return try view.leafCell(index).value
    }

    /// Reads a whole value, following its overflow chain.
    func readValue(_ value: StoredValue) throws(FirnError) -> [UInt8] {
        switch value {
        case let .inline(bytes): return Array(bytes)
        case let .overflow(head, length): return try readOverflow(head, length: length)
        }
    }

    func readOverflow(_ head: PageRef, length: UInt64) throws(FirnError) -> [UInt8] {
        try Self.readOverflow(head, length: length, pageSize: pageSize, pageLimit: pageLimit) { (ref) throws(FirnError) in
            try view(ref)
        }
    }

    /// Follows an overflow chain from `head`, reading each page with
    /// `page` (which checks it against its reference): the value's bytes,
    /// refused when the chain is longer or shorter than `length`.
    static func readOverflow(
        _ head: PageRef, length: UInt64, pageSize: Int, pageLimit: UInt64,
        page: (PageRef) throws(FirnError) -> PageView
    ) throws(FirnError) -> [UInt8] {
        let capacity = UInt64(pageSize - OverflowLayout.payloadOffset)
        guard length <= pageLimit * capacity else {
            throw FirnError.corrupt(path: "", page: head.page, version: nil,
                                    detail: "overflow value length \(length) exceeds the file")
        }
        var out = [UInt8]()
        out.reserveCapacity(Int(length))
        var ref = head
        var pages: UInt64 = 0
        let maxPages = length / capacity + 1
        while !ref.isNone {
            pages += 1
            if pages > maxPages {
                throw FirnError.corrupt(path: "", page: ref.page, version: nil,
                                        detail: "overflow chain longer than its value (cycle?)")
            }
            let v = try page(ref)
            let (payload, next) = try v.overflowPayload()
            out.append(contentsOf: payload)
            ref = next
        }
        guard UInt64(out.count) == length else {
            throw FirnError.corrupt(path: "", page: head.page, version: nil,
                                    detail: "overflow chain holds \(out.count) bytes, the leaf says \(length)")
        }
        return out
    }
}

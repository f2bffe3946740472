/// Resolves page numbers of one version to views into the map, refusing
/// numbers outside the version's pages or the map: the single bounds check
/// every page read passes through.
struct PageSource {
    let map: Mapping
    let pageSize: Int
    /// Pages of the version being read (its logical page count).
    let pageLimit: UInt64

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
    /// (a cheap guard; full checksum checks are `verify`'s job).
    @inline(__always)
    func view(_ ref: PageRef, level: Int? = nil) throws(FirnError) -> PageView {
        let v = try view(ref.page)
        if v.birth != ref.birth {
            throw v.corrupt("birth \(v.birth) does not match the reference's \(ref.birth) (lost or stale write)")
        }
        if let level, v.level != level {
            throw v.corrupt("level \(v.level) where the parent expects \(level)")
        }
        return v
    }

    /// Looks `key` up in the on-disk subtree at `ref` (a page at `level`,
    /// nil for a root). Inline bytes point into the map.
    @inline(__always)
    func lookup(_ key: UnsafeRawBufferPointer, in ref: PageRef, level: Int? = nil) throws(FirnError) -> StoredValue? {
        var view = try self.view(ref, level: level)
        try view.checkTreePage(expectLeaf: nil)
        while view.typeByte == PageType.branch.rawValue {
            let child = try view.branchChild(try view.branchSearch(key))
            let next = try self.view(child, level: view.level - 1)
            try next.checkTreePage(expectLeaf: nil)
            view = next
        }
        let (index, found) = try view.leafSearch(key)
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
            let v = try view(ref)
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

/// Decodes any single page of a database file for inspection, reading it
/// with `pread` (not through a version's map), so pages past the current
/// version's end, free pages and damaged pages can all be looked at.
package enum PageInspector {
    /// Decodes page `number` of `store`'s file.
    package static func inspect(_ store: Store, page number: UInt64) throws(FirnError) -> InspectedPage {
        let pageSize = store.pageSize
        let fileSize = try store.io.size()
        let pages = fileSize / UInt64(pageSize)
        guard number < pages else {
            throw FirnError.invalidArgument("\(store.path): page \(number) is past the end of the file (\(pages) pages)")
        }
        var buffer = [UInt8](repeating: 0, count: pageSize)
        let got = try withMutableBytes(&buffer) { (b) throws(FirnError) in
            try store.io.read(into: b, at: number * UInt64(pageSize))
        }
        guard got == pageSize else {
            throw FirnError.corrupt(path: store.path, page: number, version: nil, detail: "short read of \(got) bytes")
        }
        return buffer.withUnsafeBytes { decode($0, page: number) }
    }

    /// Decodes one page image (`bytes.count` is the page size).
    package static func decode(_ bytes: UnsafeRawBufferPointer, page number: UInt64) -> InspectedPage {
        let pageSize = bytes.count
        var page = InspectedPage(
            page: number, pageSize: pageSize, kind: .unknown, typeByte: bytes.first ?? 0, checksumOK: false,
            entries: [], problems: [])
        guard let base = bytes.baseAddress, pageSize >= PageHeader.size else {
            page.problems.append("page image too small")
            return page
        }
        if number < 2 {
            page.kind = .commitSlot
            switch CommitRecord.decode(UnsafeRawBufferPointer(rebasing: bytes[0..<min(pageSize, CommitRecord.maximumSize)])) {
            case let .success(record):
                page.commitRecord = record
                page.checksumOK = true
            case let .failure(defect):
                page.slotProblem = defect.description
                page.checksumOK = defect == .empty
            }
            return page
        }
        if bytes.allSatisfy({ $0 == 0 }) {
            page.kind = .free
            page.problems.append("all zero (never written, or zeroed)")
            return page
        }
        let view = PageView(base: base, pageSize: pageSize, number: number)
        page.level = view.level
        page.count = view.count
        page.storedPageNumber = view.storedPageNumber
        page.birth = view.birth
        page.storedChecksum = view.storedChecksum
        let computed = view.computeChecksum()
        page.computedChecksum = computed
        page.checksumOK = computed == view.storedChecksum
        if !page.checksumOK { page.problems.append("checksum mismatch: stored \(hex32(view.storedChecksum)), computed \(hex32(computed))") }
        if view.storedPageNumber != number {
            page.problems.append("header says page \(view.storedPageNumber) (misdirected write)")
        }
        switch PageType(rawValue: view.typeByte) {
        case .overflow?:
            page.kind = .overflow
            do {
                let (payload, next) = try view.overflowPayload()
                page.payloadLength = payload.count
                page.next = next
                page.usedBytes = OverflowLayout.payloadOffset + payload.count
            } catch {
                page.problems.append(error.detail)
            }
        case let type?:
            page.kind = type == .leaf ? .leaf : .branch
            decodeCells(view, isLeaf: type == .leaf, into: &page)
        case nil:
            page.problems.append("unknown page type \(view.typeByte)")
        }
        return page
    }

    private static func decodeCells(_ view: PageView, isLeaf: Bool, into page: inout InspectedPage) {
        let fitting = (view.pageSize - PageHeader.size) / 2
        var count = view.count
        if count > fitting {
            page.problems.append("entry count \(count) does not fit in the page; showing \(fitting)")
            count = fitting
        }
        var used = PageHeader.size + 2 * count
        for i in 0..<count {
            do {
                if isLeaf {
                    let cell = try view.leafCell(i)
                    var entry = InspectedPage.Entry(index: i, key: Array(cell.key))
                    switch cell.value {
                    case let .inline(bytes):
                        entry.value = Array(bytes.prefix(InspectedPage.valuePreviewLimit))
                        entry.valueLength = UInt64(bytes.count)
                        used += LeafLayout.cellHeaderSize + cell.key.count + bytes.count
                    case let .overflow(ref, length):
                        entry.overflow = ref
                        entry.valueLength = length
                        used += LeafLayout.cellHeaderSize + cell.key.count + PageRef.size + 8
                    }
                    page.entries.append(entry)
                } else {
                    let key = try view.branchKey(i)
                    let child = try view.branchChild(i)
                    page.entries.append(InspectedPage.Entry(index: i, key: Array(key), child: child))
                    used += BranchLayout.cellHeaderSize + key.count
                }
            } catch {
                page.problems.append(error.detail)
            }
        }
        page.usedBytes = min(used, view.pageSize)
    }
}

/// A stored value's bytes in the pieces they are stored in — the inline
/// bytes, or each overflow page's payload in chain order — so two values
/// can be compared without assembling either. The chain is checked as it
/// is read: it may not hold more or fewer bytes than the leaf says, nor run
/// longer than that many bytes need or the version has pages (which stops
/// a cycle, whatever length a damaged leaf claims).
struct ValueChunks {
    private let source: PageSource
    private var inline: UnsafeRawBufferPointer?
    private var next: PageRef
    private let head: PageRef
    /// Bytes the chain still owes.
    private var remaining: UInt64
    /// Pages the chain may still take.
    private var pagesLeft: UInt64
    private(set) var pagesRead = 0

    init(_ value: StoredValue, source: PageSource) {
        self.source = source
        switch value {
        case let .inline(bytes):
            inline = bytes
            next = .none
            head = .none
            remaining = 0
            pagesLeft = 0
        case let .overflow(ref, length):
            inline = nil
            next = ref
            head = ref
            remaining = length
            // A value needs length / capacity pages, one more for a partly
            // filled last page, and no chain has more pages than the
            // version: a chain longer than either is damage (a cycle).
            let capacity = UInt64(source.pageSize - OverflowLayout.payloadOffset)
            pagesLeft = min(length / capacity + 1, source.pageLimit)
        }
    }

    /// The next non-empty piece, nil after the last.
    mutating func nextChunk() throws(FirnError) -> UnsafeRawBufferPointer? {
        if let bytes = inline {
            inline = nil
            return bytes.isEmpty ? nil : bytes
        }
        while !next.isNone {
            guard pagesLeft > 0 else {
                throw FirnError.corrupt(path: "", page: next.page, version: nil,
                                        detail: "overflow chain longer than its value (cycle?)")
            }
            pagesLeft -= 1
            pagesRead += 1
            let view = try source.view(next)
            let (payload, following) = try view.overflowPayload()
            guard UInt64(payload.count) <= remaining else {
                throw view.corrupt("overflow chain holds more bytes than the leaf's length")
            }
            remaining -= UInt64(payload.count)
            next = following
            if !payload.isEmpty { return payload }
        }
        guard remaining == 0 else {
            throw FirnError.corrupt(path: "", page: head.page, version: nil,
                                    detail: "overflow chain ends \(remaining) bytes short of the leaf's length")
        }
        return nil
    }
}

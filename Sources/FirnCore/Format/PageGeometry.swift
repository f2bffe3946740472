/// The size limits that follow from the page size. Every cell is at most a
/// third of a page's usable space, which guarantees that an overfull node
/// always splits into two pages that fit (each half at most 2/3 + 1/3).
package struct PageGeometry: Sendable, Equatable {
    package static let defaultPageSize = 4096
    package static let minPageSize = 4096
    package static let maxPageSize = 65536

    package let pageSize: Int

    package static func isValidPageSize(_ size: Int) -> Bool {
        size >= minPageSize && size <= maxPageSize && size & (size - 1) == 0
    }

    package init(pageSize: Int) {
        self.pageSize = pageSize
    }

    /// Bytes after the page header.
    package var capacity: Int { pageSize - PageHeader.size }
    /// The largest cell (plus its 2-byte offset slot) a branch or leaf may hold.
    var maxCellFootprint: Int { capacity / 3 }
    /// The longest key: a quarter page (1 KiB with 4 KiB pages).
    package var maxKeyLength: Int { pageSize / 4 }
    /// Bytes of value data an overflow page carries.
    var overflowPayloadCapacity: Int { capacity - PageRef.size }

    /// True when a value of `valueLength` stays inside the leaf with its key.
    func isInline(keyLength: Int, valueLength: Int) -> Bool {
        2 + LeafLayout.cellHeaderSize + keyLength + valueLength <= maxCellFootprint
    }
}

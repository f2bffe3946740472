/// The payload of a commit frame: the version's changes as logical
/// operations, applied in order (docs/COMMIT-PATH.md, "The commit log").
/// Integers are little-endian.
///
/// | tag | then | meaning |
/// |----:|------|---------|
/// | 1 | u16 length, tree name | later operations apply to this tree |
/// | 2 | u16 length, key, u32 length, value | put the value under the key |
/// | 3 | u16 length, key | delete the key |
/// | 4 | — | the tree is created empty (new, or again after a drop) |
/// | 5 | — | the tree is dropped with all its entries |
/// | 6 | u64 entries | the tree holds this many entries after the version |
///
/// A tree name is 1 to `maxKeyLength` bytes of UTF-8, as in the catalog; a
/// key is 0 to `maxKeyLength` bytes. Operations 2–6 need a tree named before
/// them. A value may be of any length the frame holds: the frame, not an
/// overflow chain, carries it. Every tree a commit puts into, deletes from or
/// creates gets a count (6) after its changes, as its catalog entry would:
/// readers take a tree's size from it without looking keys up
/// (`LogOverlay` checks that it is there and within the file's bounds).
enum LogOperation: Equatable {
    case put(tree: String, key: [UInt8], value: [UInt8])
    case delete(tree: String, key: [UInt8])
    case createTree(String)
    case dropTree(String)
    case count(tree: String, entries: UInt64)

    var tree: String {
        switch self {
        case let .put(tree, _, _), let .delete(tree, _), let .count(tree, _): return tree
        case let .createTree(tree), let .dropTree(tree): return tree
        }
    }
}

/// One operation as read from a payload: its key and value point into the
/// payload's bytes (the map, once frames are read through it).
enum LogOperationView {
    case put(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)
    case delete(key: UnsafeRawBufferPointer)
    case createTree
    case dropTree
    case count(UInt64)
}

enum LogPayload {
    enum Tag: UInt8 {
        case tree = 1, put = 2, delete = 3, create = 4, drop = 5, count = 6
    }

    /// Builds a payload operation by operation; names a tree only when it
    /// differs from the one before.
    struct Builder {
        private(set) var bytes: [UInt8] = []
        private var currentTree: String?

        init() {}

        /// A builder whose bytes are allocated for `capacity` bytes at once.
        init(capacity: Int) {
            bytes.reserveCapacity(capacity)
        }

        /// The most a tree's operations other than puts and deletes take:
        /// naming it (tag, length, name), a drop, a create and its count.
        static func treeOverhead(_ tree: String) -> Int {
            (1 + 2 + tree.utf8.count) + 1 + 1 + (1 + 8)
        }

        /// A put's bytes (tag, key length, key, value length, value), or a
        /// delete's (nil value).
        static func operationSize(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer?) -> Int {
            1 + 2 + key.count + (value.map { 4 + $0.count } ?? 0)
        }

        private mutating func select(_ tree: String) {
            guard tree != currentTree else { return }
            currentTree = tree
            bytes.append(Tag.tree.rawValue)
            bytes.appendLE(UInt16(truncatingIfNeeded: tree.utf8.count))
            bytes.append(contentsOf: tree.utf8)
        }

        /// Appends `operation`. Lengths must already be within the limits
        /// (the write transaction checks them when the change is made).
        mutating func append(_ operation: LogOperation) {
            switch operation {
            case let .put(tree, key, value):
                key.withUnsafeBytes { k in value.withUnsafeBytes { v in appendPut(tree, key: k, value: v) } }
            case let .delete(tree, key):
                key.withUnsafeBytes { appendDelete(tree, key: $0) }
            case let .createTree(tree):
                select(tree)
                bytes.append(Tag.create.rawValue)
            case let .dropTree(tree):
                select(tree)
                bytes.append(Tag.drop.rawValue)
            case let .count(tree, entries):
                select(tree)
                bytes.append(Tag.count.rawValue)
                bytes.appendLE(entries)
            }
        }

        /// Appends a put from bytes held elsewhere (no copy into arrays first).
        mutating func appendPut(_ tree: String, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
            select(tree)
            bytes.append(Tag.put.rawValue)
            bytes.appendLE(UInt16(truncatingIfNeeded: key.count))
            bytes.append(contentsOf: key)
            bytes.appendLE(UInt32(truncatingIfNeeded: value.count))
            bytes.append(contentsOf: value)
        }

        mutating func appendDelete(_ tree: String, key: UnsafeRawBufferPointer) {
            select(tree)
            bytes.append(Tag.delete.rawValue)
            bytes.appendLE(UInt16(truncatingIfNeeded: key.count))
            bytes.append(contentsOf: key)
        }
    }

    /// Why a payload cannot be applied: the offset of the operation and
    /// what was expected there.
    struct Defect: Error, Equatable, CustomStringConvertible {
        var offset: Int
        var detail: String
        var description: String { "payload byte \(offset): \(detail)" }
    }

    /// Walks every operation of `payload`, checking each length against the
    /// bytes left and the page geometry's limits before it is used.
    static func forEach(
        _ payload: UnsafeRawBufferPointer, geometry: PageGeometry,
        _ body: (_ tree: String, _ operation: LogOperationView) throws(FirnError) -> Void
    ) throws(FirnError) -> Defect? {
        var scanner = ByteScanner(payload)
        var tree: String?
        while !scanner.isAtEnd {
            let start = scanner.offset
            let read: Read
            do {
                read = try next(&scanner, geometry: geometry)
            } catch {
                // The scanner's defects are `.corrupt` with the detail alone.
                guard case let .corrupt(_, _, _, detail) = error else { return Defect(offset: start, detail: "\(error)") }
                return Defect(offset: start, detail: detail)
            }
            switch read {
            case let .defect(detail):
                return Defect(offset: start, detail: detail)
            case let .tree(name):
                tree = name
            case let .operation(operation):
                guard let tree else { return Defect(offset: start, detail: "operation before any tree is named") }
                try body(tree, operation)
            }
        }
        return nil
    }

    /// One entry of a payload: a tree named, an operation, or why neither.
    private enum Read {
        case tree(String)
        case operation(LogOperationView)
        case defect(String)
    }

    /// Reads the entry at the scanner; throws (from the scanner) when it
    /// runs past the payload's end.
    private static func next(_ scanner: inout ByteScanner, geometry: PageGeometry) throws(FirnError) -> Read {
        let tagByte = try scanner.byte("operation tag")
        guard let tag = Tag(rawValue: tagByte) else { return .defect("operation tag \(tagByte): expected 1 to 6") }
        func key(_ what: String) throws(FirnError) -> UnsafeRawBufferPointer? {
            let length = Int(try scanner.littleEndian(UInt16.self, "\(what) runs past the payload's end: key length"))
            guard length <= geometry.maxKeyLength else { return nil }
            return try scanner.slice(length, "\(what) runs past the payload's end: key")
        }
        switch tag {
        case .tree:
            let length = Int(try scanner.littleEndian(UInt16.self, "tree name runs past the payload's end"))
            let name = try scanner.slice(length, "tree name runs past the payload's end")
            switch CatalogEntry.name(name, geometry: geometry) {
            case let .success(valid): return .tree(valid)
            case let .failure(defect): return .defect("tree name: \(defect)")
            }
        case .put:
            guard let key = try key("put") else { return .defect("key length beyond the limit of \(geometry.maxKeyLength)") }
            let length = Int(try scanner.littleEndian(UInt32.self, "put runs past the payload's end: value length"))
            return .operation(.put(key: key, value: try scanner.slice(length, "put runs past the payload's end: value")))
        case .delete:
            guard let key = try key("delete") else { return .defect("key length beyond the limit of \(geometry.maxKeyLength)") }
            return .operation(.delete(key: key))
        case .create:
            return .operation(.createTree)
        case .drop:
            return .operation(.dropTree)
        case .count:
            return .operation(.count(try scanner.littleEndian(UInt64.self, "count runs past the payload's end")))
        }
    }

    /// Every operation of `payload`, copied out; for tests and tools.
    static func operations(_ payload: UnsafeRawBufferPointer, geometry: PageGeometry) -> Result<[LogOperation], Defect> {
        var out: [LogOperation] = []
        let defect = try? forEach(payload, geometry: geometry) { tree, operation in
            switch operation {
            case let .put(key, value): out.append(.put(tree: tree, key: Array(key), value: Array(value)))
            case let .delete(key): out.append(.delete(tree: tree, key: Array(key)))
            case .createTree: out.append(.createTree(tree))
            case .dropTree: out.append(.dropTree(tree))
            case let .count(entries): out.append(.count(tree: tree, entries: entries))
            }
        }
        if let defect { return .failure(defect) }
        return .success(out)
    }
}

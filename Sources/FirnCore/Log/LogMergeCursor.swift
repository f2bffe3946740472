/// An ordered walk over a tree as a version between checkpoints has it:
/// the checkpoint's tree (`base`) with the log's entries laid over it. A
/// log entry replaces the checkpoint's entry of the same key; a logged
/// deletion hides it; after a reset (`showsBase` false) the checkpoint's
/// tree is not read at all.
///
/// Two positions move together: `base` and `logIndex`. Walking forward,
/// each is at the first entry of its side not yet passed; walking
/// backward, at the last. Turning round re-seeks both from the current key.
struct LogMergeCursor {
    private(set) var base: TreeCursor
    private let entries: [LogEntry]
    private let showsBase: Bool
    private var logIndex = 0
    private var forward = true
    private enum Current { case none, base, log }
    private var current = Current.none

    init(base: TreeCursor, entries: [LogEntry], showsBase: Bool) {
        self.base = base
        self.entries = entries
        self.showsBase = showsBase
    }

    var isValid: Bool { current != .none }

    /// The checkpoint's page holding the current entry; nil on a log entry.
    var currentPage: UInt64? { current == .base ? base.currentPage : nil }

    mutating func first() throws(FirnError) {
        if showsBase { try base.first() }
        logIndex = 0
        forward = true
        try settleForward()
    }

    mutating func last() throws(FirnError) {
        if showsBase { try base.last() }
        logIndex = entries.count - 1
        forward = false
        try settleBackward()
    }

    mutating func seek(_ key: UnsafeRawBufferPointer) throws(FirnError) {
        if showsBase { try base.seek(key) }
        logIndex = entries.lowerBound(key)
        forward = true
        try settleForward()
    }

    mutating func seek(_ key: [UInt8]) throws(FirnError) {
        try withBytes(key) { (k) throws(FirnError) in try seek(k) }
    }

    mutating func next() throws(FirnError) {
        guard current != .none else { return }
        if forward {
            switch current {
            case .base: try base.next()
            case .log: logIndex += 1
            case .none: break
            }
            return try settleForward()
        }
        // Turning round: both sides to the first entry after the current key.
        guard let key = try self.key else { return }
        try withBytes(key) { (k) throws(FirnError) in
            if showsBase {
                try base.seek(k)
                if try base.withKey({ compareBytes($0, k) == 0 }) == true { try base.next() }
            }
            logIndex = entries.lowerBound(k)
            if logIndex < entries.count, compareBytes(entries[logIndex].key, k) == 0 { logIndex += 1 }
        }
        forward = true
        try settleForward()
    }

    mutating func previous() throws(FirnError) {
        guard current != .none else { return }
        if !forward {
            switch current {
            case .base: try base.previous()
            case .log: logIndex -= 1
            case .none: break
            }
            return try settleBackward()
        }
        // Turning round: both sides to the last entry before the current key.
        guard let key = try self.key else { return }
        try withBytes(key) { (k) throws(FirnError) in
            if showsBase {
                try base.seek(k)
                if base.isValid { try base.previous() } else { try base.last() }
            }
            logIndex = entries.lowerBound(k) - 1
        }
        forward = false
        try settleBackward()
    }

    /// Chooses the current entry walking forward: the smaller key of the
    /// two sides; on a tie the log's, the checkpoint's passed over; a
    /// logged deletion passed over with it.
    private mutating func settleForward() throws(FirnError) {
        while true {
            let baseValid = showsBase && base.isValid
            guard logIndex < entries.count else {
                current = baseValid ? .base : .none
                return
            }
            let entry = entries[logIndex]
            if baseValid {
                let order = try base.withKey { compareBytes($0, entry.key) } ?? 1
                if order < 0 {
                    current = .base
                    return
                }
                if order == 0 { try base.next() }
            }
            if entry.value != nil {
                current = .log
                return
            }
            logIndex += 1
        }
    }

    /// As `settleForward`, walking backward: the larger key of the two.
    private mutating func settleBackward() throws(FirnError) {
        while true {
            let baseValid = showsBase && base.isValid
            guard logIndex >= 0 else {
                current = baseValid ? .base : .none
                return
            }
            let entry = entries[logIndex]
            if baseValid {
                let order = try base.withKey { compareBytes($0, entry.key) } ?? -1
                if order > 0 {
                    current = .base
                    return
                }
                if order == 0 { try base.previous() }
            }
            if entry.value != nil {
                current = .log
                return
            }
            logIndex -= 1
        }
    }

    // MARK: reading

    func withKey<R>(_ body: (UnsafeRawBufferPointer) -> R) throws(FirnError) -> R? {
        switch current {
        case .none: return nil
        case .base: return try base.withKey(body)
        case .log: return body(entries[logIndex].key)
        }
    }

    var key: [UInt8]? {
        get throws(FirnError) { try withKey { Array($0) } }
    }

    /// The current value as stored: a log entry's bytes point into its frame.
    func storedValue() throws(FirnError) -> StoredValue? {
        switch current {
        case .none: return nil
        case .base: return try base.storedValue()
        case .log: return entries[logIndex].value.map { .inline($0) }
        }
    }

    func value() throws(FirnError) -> [UInt8]? {
        switch current {
        case .none: return nil
        case .base: return try base.value()
        case .log: return entries[logIndex].value.map { Array($0) }
        }
    }

    var subtreesEnteredForward: Int { base.subtreesEnteredForward }
    func dropResidentPages() { base.dropResidentPages() }
}

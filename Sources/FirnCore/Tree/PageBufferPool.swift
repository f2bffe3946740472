/// Page-sized buffers for the nodes a write transaction edits, kept for the
/// next transaction instead of freed. Every commit copies a dozen pages into
/// nodes and frees them all when it ends; freed together they left the
/// heap's top chunk past glibc's trim threshold, so each commit gave the
/// memory back to the kernel and the next faulted it in again, zeroed
/// (about a tenth of a one-record commit's time, measured with perf).
enum PageBufferPool {
    /// Enough for the nodes of a few small commits; a big transaction's
    /// extra buffers are freed as before.
    static let retainedPerSize = 256

    private static let free = Locked<[Int: [UnsafeMutableRawPointer]]>([:])

    /// A buffer of `pageSize` bytes, 16-byte aligned, contents undefined.
    static func take(pageSize: Int) -> UnsafeMutableRawPointer {
        if let buffer = free.withLock({ $0[pageSize]?.popLast() }) { return buffer }
        return UnsafeMutableRawPointer.allocate(byteCount: pageSize, alignment: 16)
    }

    /// Returns a buffer from `take(pageSize:)`.
    static func give(_ buffer: UnsafeMutableRawPointer, pageSize: Int) {
        let kept = free.withLock { (lists) -> Bool in
            guard lists[pageSize, default: []].count < retainedPerSize else { return false }
            lists[pageSize, default: []].append(buffer)
            return true
        }
        if !kept { buffer.deallocate() }
    }
}

/// Bytes copied into chunks that never move or shrink while the arena
/// lives: a write transaction's keys and values, which its sorted entries
/// and cursors point at without owning them. Freed all at once.
///
/// Its transaction's one thread at a time uses it: the stored properties
/// skip the runtime exclusivity check (an access record per store, profiled).
final class ByteArena {
    @exclusivity(unchecked) private var chunks: [UnsafeMutableRawBufferPointer] = []
    @exclusivity(unchecked) private var used = 0
    /// Chunks start small and double: most transactions of a log commit
    /// hold a few hundred bytes, and a 64 KiB chunk per transaction cost a
    /// large malloc and free every commit (profiled).
    @exclusivity(unchecked) private var nextChunkSize = 1 << 10
    private static let largestChunkSize = 64 << 10

    deinit { for chunk in chunks { chunk.deallocate() } }

    /// A stable copy of `bytes`, valid while the arena lives.
    func store(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard bytes.count > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        if chunks.isEmpty || used + bytes.count > chunks[chunks.count - 1].count {
            // A value larger than a chunk gets a chunk of its own.
            chunks.append(.allocate(byteCount: max(nextChunkSize, bytes.count), alignment: 8))
            nextChunkSize = min(nextChunkSize * 2, Self.largestChunkSize)
            used = 0
        }
        let chunk = chunks[chunks.count - 1]
        let target = UnsafeMutableRawBufferPointer(rebasing: chunk[used..<used + bytes.count])
        target.copyMemory(from: bytes)
        used += bytes.count
        return UnsafeRawBufferPointer(target)
    }

    func store(_ bytes: [UInt8]) -> UnsafeRawBufferPointer {
        bytes.withUnsafeBytes { store($0) }
    }
}

import FirnCore
import Synchronization

/// Counts what Firn writes: page writes (writes past the two commit slots,
/// in pages) and syncs, for the commit row's pages and syncs per commit.
final class CountingIO: FileIO, @unchecked Sendable {
    let base: any FileIO
    let pageSize: UInt64
    private let counts = Mutex<(pages: UInt64, syncs: UInt64)>((0, 0))

    init(_ base: any FileIO, pageSize: Int) {
        self.base = base
        self.pageSize = UInt64(pageSize)
    }

    var pages: UInt64 { counts.withLock { $0.pages } }
    var syncs: UInt64 { counts.withLock { $0.syncs } }

    var path: String { base.path }
    var descriptor: Int32 { base.descriptor }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(FirnError) {
        try base.write(bytes, at: offset)
        if offset >= 2 * pageSize {
            counts.withLock { $0.pages += (UInt64(bytes.count) + pageSize - 1) / pageSize }
        }
    }

    /// Forwarded whole, so the commit child writes what an unwrapped store
    /// writes (one pwritev per run of pages), and counted as pages.
    func write(gathering buffers: [UnsafeRawBufferPointer], at offset: UInt64) throws(FirnError) {
        try base.write(gathering: buffers, at: offset)
        if offset >= 2 * pageSize {
            let bytes = buffers.reduce(UInt64(0)) { $0 + UInt64($1.count) }
            counts.withLock { $0.pages += (bytes + pageSize - 1) / pageSize }
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(FirnError) -> Int {
        try base.read(into: buffer, at: offset)
    }

    func sync() throws(FirnError) {
        try base.sync()
        counts.withLock { $0.syncs += 1 }
    }

    func extend(to size: UInt64) throws(FirnError) { try base.extend(to: size) }
    func size() throws(FirnError) -> UInt64 { try base.size() }
    func close() { base.close() }
}

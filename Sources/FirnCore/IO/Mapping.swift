#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A shared read-only memory map of the database file. Reads are zero-copy
/// through it; writes never go through it (they use `FileIO`). A map reserves
/// more address space than the file has, so the file can grow under it;
/// snapshots keep the map they started with alive until they end.
final class Mapping: @unchecked Sendable {
    let base: UnsafeRawPointer
    let length: Int
    /// Pages whole-file walks touched through this map (`touchedPage`).
    private let touches = Atomic<UInt64>(0)
    /// The process's file-backed resident bytes right after the last drop.
    private let residentAfterDrop = Atomic<UInt64>(0)

    init(descriptor: Int32, length: Int, path: String) throws(FirnError) {
        guard length > 0 else { throw FirnError.misuse("\(path): cannot map 0 bytes") }
        let pointer = mmap(nil, length, PROT_READ, MAP_SHARED, descriptor, 0)
        guard let pointer, pointer != MAP_FAILED else {
            throw FirnError.io(path: path, operation: "mmap \(length) bytes", errno: errno)
        }
        base = UnsafeRawPointer(pointer)
        self.length = length
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: base), length)
    }

    /// Drops this process's page-table entries for the whole map. File pages
    /// a process touches through a map count in its resident set; a walk over
    /// every page (verify, compact, export) calls this as it goes, so its
    /// memory stays bounded whatever the file size. Pointers stay valid: the
    /// next access faults the page back in from the page cache.
    func dropResidentPages() {
        _ = madvise(UnsafeMutableRawPointer(mutating: base), length, MADV_DONTNEED)
    }

    /// A whole-file walk (verify, compact, export, the open-time check)
    /// touched one more page: every `touchesBetweenLooks` pages it looks at
    /// what the process's file-backed resident set grew by since the last
    /// drop, and drops the map's pages past `residencyBudget`. Measured,
    /// not counted: one touch maps a fault-around window, or a whole large
    /// folio of the page cache (ext4 on Linux 6.x), so a bound counted in
    /// bytes read (4 MiB) let export keep 190 MiB of a 2 GiB file resident.
    func touchedPage() {
        let count = touches.wrappingAdd(1, ordering: .relaxed).newValue
        guard count % Self.touchesBetweenLooks == 0 else { return }
        guard let resident = ProcessMemory.fileBackedResidentBytes() else {
            // No /proc: drop at every look, the bound then in pages.
            dropResidentPages()
            return
        }
        guard resident > residentAfterDrop.load(ordering: .relaxed) &+ Self.residencyBudget else { return }
        dropResidentPages()
        residentAfterDrop.store(ProcessMemory.fileBackedResidentBytes() ?? 0, ordering: .relaxed)
    }

    /// Pages touched between two looks at the resident set: a look is a
    /// read of /proc/self/statm (a few µs).
    static let touchesBetweenLooks: UInt64 = 64

    /// How many bytes of the file a whole-file walk may keep resident
    /// between `dropResidentPages` calls. 48 MiB: a drop also unmaps the
    /// neighbours the walk is about to reach and the tree's upper pages,
    /// which it then faults back in; at 16 MiB verify of a 1.9 GB file took
    /// 2.4 s against 1.4–1.9 s, at 48 MiB it runs as fast as with no bound
    /// (measured with the file in the page cache).
    static let residencyBudget: UInt64 = 48 << 20

    /// What one read fault maps at least: the kernel maps the neighbouring
    /// pages of the faulting one too (fault-around, 16 pages of 4 KiB).
    static let faultAroundBytes: UInt64 = 64 << 10

    /// How many pages of `pageSize` a tree iteration (`TreeReader`) touches
    /// between `dropResidentPages` calls: `residencyBudget` over what one
    /// touch may map.
    static func pagesBetweenDrops(pageSize: Int) -> UInt64 {
        max(1, residencyBudget / max(faultAroundBytes, UInt64(max(1, pageSize))))
    }

    /// The address space to reserve for a file of `fileSize` bytes: at least
    /// 1 GiB, and twice the file, so growth rarely needs a new map.
    static func reservation(forFileSize fileSize: UInt64) -> Int {
        let minimum: UInt64 = 1 << 30
        let wanted = max(minimum, fileSize.multipliedReportingOverflow(by: 2).partialValue)
        return Int(min(wanted, UInt64(Int.max / 2)))
    }
}

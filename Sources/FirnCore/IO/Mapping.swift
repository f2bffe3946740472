#if canImport(Glibc)
import Glibc
#endif

/// A shared read-only memory map of the database file. Reads are zero-copy
/// through it; writes never go through it (they use `FileIO`). A map reserves
/// more address space than the file has, so the file can grow under it;
/// snapshots keep the map they started with alive until they end.
final class Mapping: @unchecked Sendable {
    let base: UnsafeRawPointer
    let length: Int

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

    /// How many bytes a whole-file walk reads between `dropResidentPages` calls.
    /// Small, because each fault maps up to 16 neighbouring pages (fault-around).
    static let residencyBudget: UInt64 = 4 << 20

    /// The address space to reserve for a file of `fileSize` bytes: at least
    /// 1 GiB, and twice the file, so growth rarely needs a new map.
    static func reservation(forFileSize fileSize: UInt64) -> Int {
        let minimum: UInt64 = 1 << 30
        let wanted = max(minimum, fileSize.multipliedReportingOverflow(by: 2).partialValue)
        return Int(min(wanted, UInt64(Int.max / 2)))
    }
}

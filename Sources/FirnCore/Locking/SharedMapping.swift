#if canImport(Glibc)
import Glibc
#endif
import CFirnShims

/// The lock file's `MAP_SHARED` mapping and the only code that touches its
/// memory. Offsets are computed by `LockFile` from a header it validated
/// against the file size before mapping; each accessor still checks its
/// range and alignment (a failed check is a bug in this module, not bad
/// file data). Every integer access is a sequentially consistent atomic,
/// since other processes read and write the same bytes concurrently.
struct SharedMapping: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let size: Int

    /// Maps `size` bytes of `fd` read-write and shared.
    static func map(fd: Int32, size: Int, path: String) throws(FirnError) -> SharedMapping {
        let address = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let address, address != MAP_FAILED else {
            throw FirnError.io(path: path, operation: "mmap", errno: errno)
        }
        return SharedMapping(base: address, size: size)
    }

    func unmap() {
        munmap(base, size)
    }

    private func check(_ offset: Int, _ width: Int) {
        precondition(offset >= 0 && offset <= size - width && offset % width == 0,
                     "lock file access at \(offset) (\(width) bytes) outside the \(size)-byte mapping")
    }

    func pointer32(_ offset: Int) -> UnsafeMutablePointer<UInt32> {
        check(offset, 4)
        return (base + offset).assumingMemoryBound(to: UInt32.self)
    }

    func pointer64(_ offset: Int) -> UnsafeMutablePointer<UInt64> {
        check(offset, 8)
        return (base + offset).assumingMemoryBound(to: UInt64.self)
    }

    func rawPointer(_ offset: Int, count: Int) -> UnsafeMutableRawPointer {
        precondition(offset >= 0 && count >= 0 && offset <= size - count,
                     "lock file range \(offset)+\(count) outside the \(size)-byte mapping")
        return base + offset
    }

    func load32(_ offset: Int) -> UInt32 { firn_atomic_load_u32(pointer32(offset)) }
    func store32(_ offset: Int, _ value: UInt32) { firn_atomic_store_u32(pointer32(offset), value) }
    func cas32(_ offset: Int, expected: UInt32, desired: UInt32) -> Bool {
        firn_atomic_cas_u32(pointer32(offset), expected, desired) != 0
    }
    @discardableResult
    func add32(_ offset: Int, _ delta: UInt32) -> UInt32 { firn_atomic_add_u32(pointer32(offset), delta) }

    /// Sleeps on the futex word at `offset` while it holds `expected`, at
    /// most `nanoseconds`, counted meanwhile in the word at `waiters`
    /// (layout 4). The count goes up after the caller read `expected`: a
    /// change before it fails the wait's own compare, a change after it
    /// sees the count in `wake` (sequentially consistent on both sides).
    func wait(_ offset: Int, expected: UInt32, countedIn waiters: Int, nanoseconds: Int64) {
        add32(waiters, 1)
        _ = firn_futex_wait(pointer32(offset), expected, nanoseconds)
        add32(waiters, UInt32.max)
    }

    /// Wakes every sleeper on the futex word at `offset`, if `waiters`
    /// counts any: a system call saved per release or publication nobody
    /// waits for. A waiter that died counted leaves the count high: wakes
    /// nobody needs, never a missed one.
    func wake(_ offset: Int, countedIn waiters: Int) {
        if load32(waiters) != 0 { _ = firn_futex_wake_all(pointer32(offset)) }
    }

    func load64(_ offset: Int) -> UInt64 { firn_atomic_load_u64(pointer64(offset)) }
    func cas64(_ offset: Int, expected: UInt64, desired: UInt64) -> Bool {
        firn_atomic_cas_u64(pointer64(offset), expected, desired) != 0
    }
    func store64(_ offset: Int, _ value: UInt64) { firn_atomic_store_u64(pointer64(offset), value) }
    @discardableResult
    func add64(_ offset: Int, _ delta: UInt64) -> UInt64 { firn_atomic_add_u64(pointer64(offset), delta) }

    func loadInt32(_ offset: Int) -> Int32 { Int32(bitPattern: load32(offset)) }
    func storeInt32(_ offset: Int, _ value: Int32) { store32(offset, UInt32(bitPattern: value)) }
    func loadInt64(_ offset: Int) -> Int64 { Int64(bitPattern: load64(offset)) }
    func storeInt64(_ offset: Int, _ value: Int64) { store64(offset, UInt64(bitPattern: value)) }

    func loadByte(_ offset: Int) -> UInt8 {
        rawPointer(offset, count: 1).load(as: UInt8.self)
    }

    func storeByte(_ offset: Int, _ value: UInt8) {
        rawPointer(offset, count: 1).storeBytes(of: value, as: UInt8.self)
    }

    func bytes(_ offset: Int, count: Int) -> [UInt8] {
        let source = UnsafeRawBufferPointer(start: rawPointer(offset, count: count), count: count)
        return Array(source)
    }

    /// Writes `bytes` at `offset` and zero-fills the rest of `count` bytes.
    func write(_ bytes: [UInt8], at offset: Int, paddedTo count: Int) {
        let target = rawPointer(offset, count: count)
        memset(target, 0, count)
        bytes.prefix(count).withUnsafeBytes { source in
            if let from = source.baseAddress { memcpy(target, from, source.count) }
        }
    }

    func zero(_ offset: Int, count: Int) {
        memset(rawPointer(offset, count: count), 0, count)
    }
}

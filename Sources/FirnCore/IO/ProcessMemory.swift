#if canImport(Glibc)
import Glibc
#endif

/// This process's memory as the kernel counts it (`/proc/self/statm`).
enum ProcessMemory {
    /// The descriptor of `/proc/self/statm`, opened once (-1 without /proc).
    private static let statm: Int32 = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)

    /// Resident pages backed by a file or shared memory (statm's third
    /// field, `RssFile` + `RssShmem`), in bytes; nil without /proc.
    static func fileBackedResidentBytes() -> UInt64? {
        guard statm >= 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 128)
        let read = buffer.withUnsafeMutableBytes { SystemCall.readAll(statm, into: $0, at: 0) }
        guard case let .success(count) = read else { return nil }
        // "size resident shared text lib data dt", in pages.
        let fields = buffer[..<count].split(separator: UInt8(ascii: " "))
        guard fields.count >= 3, let pages = UInt64(String(decoding: fields[2], as: UTF8.self)) else { return nil }
        let (bytes, overflow) = pages.multipliedReportingOverflow(by: UInt64(sysconf(Int32(_SC_PAGESIZE))))
        return overflow ? nil : bytes
    }
}

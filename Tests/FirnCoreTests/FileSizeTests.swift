import Testing
@testable import FirnCore
import FirnTestSupport

/// `POSIXFile.size()` seeks to the end instead of calling `fstat` (see its
/// comment: a timestamp query per commit cost an inode write per sync).
/// The size must still be the file's current size whoever changed it, and
/// moving the descriptor's offset must not disturb positional I/O.
@Suite struct FileSizeTests {
    @Test func sizeFollowsWritesThroughAnyDescriptorAndLeavesPositionalIOAlone() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("sized")
        let file = try POSIXFile(path: path, writable: true, create: true)
        #expect(try file.size() == 0)
        try [UInt8](repeating: 7, count: 100).withUnsafeBytes { b in try file.write(b, at: 4096) }
        #expect(try file.size() == 4196)

        // Another descriptor (another process's, in practice) grows it.
        let other = try POSIXFile(path: path, writable: true)
        try other.extend(to: 3 * 4096)
        #expect(try file.size() == 3 * 4096)
        try [UInt8]([1, 2, 3]).withUnsafeBytes { b in try other.write(b, at: 5 * 4096) }
        #expect(try file.size() == 5 * 4096 + 3)

        // Sizing moved the offset to the end; positional reads and writes
        // still go where they are told.
        try [UInt8]([9, 9]).withUnsafeBytes { b in try file.write(b, at: 10) }
        var bytes = [UInt8](repeating: 0, count: 3)
        let n = try bytes.withUnsafeMutableBytes { b in try file.read(into: b, at: 5 * 4096) }
        #expect(n == 3 && bytes == [1, 2, 3])
        var head = [UInt8](repeating: 0, count: 2)
        _ = try head.withUnsafeMutableBytes { b in try file.read(into: b, at: 10) }
        #expect(head == [9, 9])
        #expect(try file.size() == 5 * 4096 + 3)
        file.close()
        other.close()
    }
}

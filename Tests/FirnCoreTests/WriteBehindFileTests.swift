import Testing
@testable import FirnCore
import FirnTestSupport

/// `WriteBehindFile`, the compaction output's writer thread: what is read
/// back is what was written, in any sizes, and a failed write is thrown by
/// the calls that wait for the writer, never lost.
@Suite struct WriteBehindFileTests {
    static func pattern(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 31) ^ seed) }
    }

    @Test func whatIsReadBackIsWhatWasWritten() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("out")
        let file = try #require(WriteBehindFile(try POSIXFile(path: path, writable: true, create: true)))
        var expected: [UInt8] = []
        // Sizes around and past a buffer, one split across several.
        for (i, size) in [4096, 1, (1 << 20) - 3, 1 << 20, (1 << 20) + 7, 3 << 20, 12_345].enumerated() {
            let bytes = Self.pattern(size, seed: i)
            try withBytes(bytes) { (b) throws(FirnError) in try file.write(b, at: UInt64(expected.count)) }
            expected += bytes
        }
        // A rewrite of an earlier range lands after the first write of it.
        let patch = Self.pattern(5000, seed: 99)
        try withBytes(patch) { (b) throws(FirnError) in try file.write(b, at: 100) }
        expected.replaceSubrange(100..<5100, with: patch)
        try file.sync()
        #expect(try file.size() == UInt64(expected.count))
        var read = [UInt8](repeating: 0, count: expected.count)
        let n = try withMutableBytes(&read) { (b) throws(FirnError) in try file.read(into: b, at: 0) }
        #expect(n == expected.count)
        #expect(read == expected)
        file.close()
        // And from another descriptor, once closed.
        #expect(try Self.contents(path, count: expected.count) == expected)
    }

    /// The first `count` bytes of the file at `path`, read through a new descriptor.
    static func contents(_ path: String, count: Int) throws -> [UInt8] {
        let file = try POSIXFile(path: path, writable: false)
        defer { file.close() }
        var bytes = [UInt8](repeating: 0, count: count)
        _ = try withMutableBytes(&bytes) { (b) throws(FirnError) in try file.read(into: b, at: 0) }
        return bytes
    }

    @Test func aFailedWriteIsThrownByTheNextWaitingCall() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("read-only")
        try POSIXFile(path: path, writable: true, create: true).close()
        // A descriptor opened read-only: every pwrite fails (EBADF).
        let file = try #require(WriteBehindFile(try POSIXFile(path: path, writable: false)))
        defer { file.close() }
        let bytes = Self.pattern(4096, seed: 1)
        var thrown: FirnError? = nil
        do {
            // Enough writes to need a buffer back: one of them, or the sync, throws.
            for i in 0..<(WriteBehindFile.bufferCount + 2) {
                try withBytes(bytes) { (b) throws(FirnError) in try file.write(b, at: UInt64(i * 4096)) }
            }
            try file.sync()
        } catch {
            thrown = error
        }
        guard case .io? = thrown else {
            Issue.record("expected an I/O error, got \(String(describing: thrown))")
            return
        }
        // Still failing afterwards: nothing pretends the data is there.
        #expect(throws: FirnError.self) { try file.sync() }
    }
}

/// The direct (`O_DIRECT`) writer, buffers filled in place, and the pages a
/// reader reads from the buffers while they are kept.
@Suite struct WriteBehindDirectTests {
    @Test func leasedBuffersAreWrittenDirectlyAndReadableWhileKept() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("out")
        let file = try #require(WriteBehindFile(try POSIXFile(path: path, writable: true, create: true), direct: true,
                                                buffers: 4))
        var expected: [UInt8] = []
        // Everything from offset 0 kept for the reader, which is busy.
        file.retain(from: 0, busy: true)
        for i in 0..<3 {
            let lease = try file.lease()
            let bytes = WriteBehindFileTests.pattern(WriteBehindFile.bufferBytes, seed: i)
            lease.bytes.copyMemory(from: UnsafeRawBufferPointer(start: bytes, count: bytes.count))
            file.submit(lease, count: bytes.count, at: UInt64(expected.count))
            expected += bytes
        }
        // In place, and copied, while kept (written or not).
        let at = UInt64(WriteBehindFile.bufferBytes + 4096)
        let inPlace = try #require(file.heldBytes(at: at, count: 4096))
        #expect(Array(UnsafeRawBufferPointer(start: inPlace, count: 4096)) == Array(expected[Int(at)..<Int(at) + 4096]))
        var copied = [UInt8](repeating: 0, count: 3 << 20)
        let n = copied.withUnsafeMutableBytes { file.readHeld(into: $0, at: 0) }
        #expect(n == expected.count)
        #expect(copied == expected)
        // Not busy: nothing handed out in place.
        file.retain(from: .max, busy: false)
        #expect(file.heldBytes(at: at, count: 4096) == nil)
        try file.sync()
        #expect(try file.size() == UInt64(expected.count))
        file.close()
        #expect(try WriteBehindFileTests.contents(path, count: expected.count) == expected)
    }

    @Test func aWriteDirectIOrefusesGoesThroughThePageCache() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("out")
        let file = try #require(WriteBehindFile(try POSIXFile(path: path, writable: true, create: true), direct: true))
        // Odd sizes and offsets: O_DIRECT refuses them (EINVAL), the page cache takes them.
        let bytes = WriteBehindFileTests.pattern(12_345, seed: 7)
        try withBytes(bytes) { (b) throws(FirnError) in try file.write(b, at: 3) }
        try file.sync()
        #expect(!file.writesDirect)
        var read = [UInt8](repeating: 0, count: bytes.count)
        _ = try withMutableBytes(&read) { (b) throws(FirnError) in try file.read(into: b, at: 3) }
        #expect(read == bytes)
        file.close()
    }
}

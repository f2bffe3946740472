import Foundation
import Synchronization
import Testing
@testable import FirnTools
import FirnCore
import FirnTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Export's block compressor: bytes submitted by copy and blocks the packer
/// fills in place (`LeasingOutput`) come out as one LZ4 frame's blocks, in
/// the order they were given, whichever way each came.
@Suite struct ParallelBlockCompressorTests {
    /// Fills a lent block with `bytes` and hands it over.
    static func lend(_ bytes: [UInt8], to compressor: ParallelBlockCompressor) throws {
        let lease = try compressor.lease()
        #expect(lease.bytes.count == compressor.leaseBytes)
        lease.bytes.copyBytes(from: bytes)
        try compressor.submit(lease, count: bytes.count, at: 0)
    }

    /// What `lz4 -d` makes of `blocks` framed as export frames them: exactly
    /// `expected`, or the test fails.
    static func expectDecodes(_ blocks: [UInt8], to expected: [UInt8], in dir: TemporaryDirectory) throws {
        let path = dir.file("frame.lz4")
        let whole = LZ4BlockFrame.header(contentSize: UInt64(expected.count)) + blocks + LZ4BlockFrame.endMark
        try Data(whole).write(to: URL(fileURLWithPath: path))
        let decoded = try FirnRun.run(["-c", "lz4 -d -q -f '\(path)' '\(dir.file("plain"))'"], executable: "/bin/sh")
        #expect(decoded.status == 0, "\(decoded.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("plain"))) == Data(expected))
    }

    @Test func copiedBytesAndLentBlocksComeOutInTheirOrder() throws {
        let dir = try TemporaryDirectory()
        let frame = Mutex<[UInt8]>([])
        let compressor = ParallelBlockCompressor(workers: 2, inFlight: 3, blockSize: 4096, level: 0) { bytes in
            frame.withLock { $0.append(contentsOf: bytes) }
        }
        var generator = SeededGenerator(seed: 28)
        func piece(_ count: Int, compressible: Bool) -> [UInt8] {
            (0..<count).map { compressible ? UInt8($0 % 7) : UInt8.random(in: 0...255, using: &generator) }
        }
        var expected: [UInt8] = []
        func copy(_ bytes: [UInt8]) throws {
            try bytes.withUnsafeBytes { try compressor.submit($0) }
            expected += bytes
        }
        func lend(_ bytes: [UInt8]) throws {
            try Self.lend(bytes, to: compressor)
            expected += bytes
        }
        try copy(piece(3000, compressible: true))      // a partly filled block, sent before the lease
        try lend(piece(4096, compressible: false))     // stored raw
        try copy(piece(9000, compressible: false))     // two whole blocks and a part
        try lend(piece(100, compressible: true))
        compressor.giveBack(try compressor.lease())    // unused: nothing written
        try lend(piece(4096, compressible: true))
        let written = try compressor.finish()
        let blocks = frame.withLock { $0 }
        #expect(written == UInt64(blocks.count))
        try Self.expectDecodes(blocks, to: expected, in: dir)
    }

    /// Blocks that take very different times to compress, on two workers:
    /// every other one is held 20 ms in its encoder, so the block after it
    /// is compressed first, and must wait to be written after it.
    @Test func aBlockCompressedEarlyIsWrittenAfterTheBlockBeforeIt() throws {
        let dir = try TemporaryDirectory()
        let frame = Mutex<[UInt8]>([])
        let compressor = ParallelBlockCompressor(workers: 2, inFlight: 4, blockSize: 4096, encoder: { input, output in
            if input.first.map({ $0 % 2 == 0 }) ?? false { usleep(20_000) }
            return LZ4BlockFrame.encode(input, level: 0, into: output)
        }) { bytes in
            frame.withLock { $0.append(contentsOf: bytes) }
        }
        var expected: [UInt8] = []
        for block in 0..<12 {
            let bytes = (0..<4096).map { UInt8(truncatingIfNeeded: block + $0 / 1024) }
            try Self.lend(bytes, to: compressor)
            expected += bytes
        }
        _ = try compressor.finish()
        try Self.expectDecodes(frame.withLock { $0 }, to: expected, in: dir)
    }

    /// A failed write is the error `finish` throws; nothing is written after
    /// it, and the packer is told to stop instead of waiting for a block.
    @Test func aFailedWriteStopsTheWritesAndIsThrown() throws {
        let writes = Mutex(0)
        let failure = ToolError.writing("out.lz4", "write", errno: ENOSPC)
        let compressor = ParallelBlockCompressor(workers: 2, inFlight: 3, blockSize: 4096, level: 0) { _ throws(ToolError) in
            let count = writes.withLock { $0 += 1; return $0 }
            if count == 3 { throw failure }
        }
        var stopped = false
        for _ in 0..<200 {
            do throws(FirnError) {
                let lease = try compressor.lease()
                lease.bytes.initializeMemory(as: UInt8.self, repeating: 7)
                try compressor.submit(lease, count: 4096, at: 0)
            } catch {
                stopped = true
                break
            }
        }
        #expect(stopped, "the packer went on after the write failed")
        #expect(throws: failure) { _ = try compressor.finish() }
        #expect(writes.withLock { $0 } == 3)
    }
}

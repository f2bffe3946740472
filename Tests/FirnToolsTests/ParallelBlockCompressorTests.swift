import Foundation
import Synchronization
import Testing
@testable import FirnTools
import FirnCore
import FirnTestSupport

/// Export's block compressor: bytes submitted by copy and blocks the packer
/// fills in place (`LeasingOutput`) come out as one LZ4 frame's blocks, in
/// the order they were given, whichever way each came.
@Suite struct ParallelBlockCompressorTests {
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
            let lease = try compressor.lease()
            #expect(lease.bytes.count == compressor.leaseBytes)
            lease.bytes.copyBytes(from: bytes)
            try compressor.submit(lease, count: bytes.count, at: 0)
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

        let path = dir.file("frame.lz4")
        let whole = LZ4BlockFrame.header(contentSize: UInt64(expected.count)) + blocks + LZ4BlockFrame.endMark
        try Data(whole).write(to: URL(fileURLWithPath: path))
        let decoded = try FirnRun.run(["-c", "lz4 -d -q -f '\(path)' '\(dir.file("plain"))'"], executable: "/bin/sh")
        #expect(decoded.status == 0, "\(decoded.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("plain"))) == Data(expected))
    }
}

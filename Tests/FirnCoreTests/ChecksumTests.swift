import Testing
@testable import FirnCore
import FirnTestSupport

@Suite struct ChecksumTests {
    @Test func knownVectorMatchesCastagnoli() {
        // RFC 3720 B.4: CRC32C of "123456789" is 0xE3069283.
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
    }

    @Test func thirtyTwoZeroBytesMatchRFC3720() {
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
    }

    @Test func continuingEqualsWhole() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let whole = CRC32C.checksum(bytes)
        let first = bytes[..<333].withUnsafeBytes { CRC32C.checksum($0) }
        let both = bytes[333...].withUnsafeBytes { CRC32C.checksum($0, continuing: first) }
        #expect(whole == both)
    }

    /// The interleaved hardware path joins three streams per block (blocks of
    /// 1,344 and 256 bytes): every length around and across those blocks,
    /// at every alignment, continuing from a non-zero CRC, equals the table path.
    @Test func interleavedStreamsEqualTheTablePath() {
#if arch(x86_64)
        // Otherwise both sides below are the table path and prove nothing.
        #expect(CRC32C.usesHardware, "an x86-64 CPU without SSE4.2")
#endif
        var generator = SeededGenerator(seed: 32)
        let bytes = (0..<(3 * 1344 * 3 + 3 * 256 + 64)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var lengths = Array(0...80) + Array(stride(from: 760, through: 800, by: 1))
        lengths += Array(stride(from: 4000, through: 4100, by: 1)) + [4064, 8160, 16352, 3 * 1344 * 3 + 3 * 256]
        bytes.withUnsafeBytes { all in
            for length in lengths {
                for offset in [0, 1, 3, 7, 8] where offset + length <= all.count {
                    let slice = UnsafeRawBufferPointer(rebasing: all[offset..<(offset + length)])
                    for start: UInt32 in [0, 0xDEAD_BEEF] {
                        let fast = CRC32C.checksum(slice, continuing: start)
                        let table = CRC32C.portableChecksum(slice, continuing: start)
                        #expect(fast == table, "length \(length), offset \(offset), start \(start)")
                    }
                }
            }
        }
    }

    /// The table path itself is the RFC's CRC (so the comparison above is to a known answer).
    @Test func tablePathMatchesCastagnoli() {
        Array("123456789".utf8).withUnsafeBytes { #expect(CRC32C.portableChecksum($0) == 0xE306_9283) }
    }
}

import Testing
@testable import FirnCore

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
}

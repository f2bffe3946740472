import Testing
@testable import FirnTools

@Suite struct ToolsLinkTests {
    @Test func checksumIsReachableThroughTools() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
    }
}

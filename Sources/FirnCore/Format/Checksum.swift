import CFirnShims

/// CRC32C (Castagnoli), the checksum of every page, reference and commit
/// record. Uses the SSE4.2 instruction when the CPU has it, over three
/// interleaved streams.
package enum CRC32C {
    @inline(__always)
    package static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
        return firn_crc32c(crc, base, bytes.count)
    }

    /// The table-driven CRC whatever the CPU: the reference the hardware
    /// path (three interleaved streams) is tested against.
    package static func portableChecksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
        return firn_crc32c_portable(crc, base, bytes.count)
    }

    package static var usesHardware: Bool { firn_crc32c_hardware() != 0 }

    package static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }
}

import CLZ4
#if canImport(Glibc)
import Glibc
#endif

/// Streaming LZ4 frames (the format of the `lz4` command) with a content
/// checksum and the content size in the header: compress a file into a
/// descriptor, decompress a descriptor into a file, in 1 MiB chunks.
public enum LZ4Frame {
    static let chunk = 1 << 20
    static let magic: UInt32 = 0x184D_2204

    static func check(_ code: Int, _ path: String, _ what: String) throws(ToolError) -> Int {
        if LZ4F_isError(code) != 0 {
            let name = String(cString: LZ4F_getErrorName(code))
            throw ToolError.corruptInput(path: path, detail: "\(what): \(name)")
        }
        return code
    }

    /// Compresses `size` bytes of `inputFD` (from offset 0) and writes the
    /// frame through `write`; returns the compressed size.
    public static func compress(
        inputFD: Int32, size: UInt64, level: Int32, inputPath: String,
        write: (UnsafeRawBufferPointer) throws(ToolError) -> Void, progress: ((UInt64) -> Void)? = nil
    ) throws(ToolError) -> UInt64 {
        var context: OpaquePointer? = nil
        _ = try check(LZ4F_createCompressionContext(&context, UInt32(LZ4F_VERSION)), inputPath, "LZ4F_createCompressionContext")
        defer { LZ4F_freeCompressionContext(context) }
        var prefs = LZ4F_preferences_t()
        prefs.frameInfo.blockSizeID = LZ4F_max4MB
        prefs.frameInfo.blockMode = LZ4F_blockLinked
        prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled
        prefs.frameInfo.contentSize = size
        prefs.compressionLevel = level
        let bound = LZ4F_compressBound(chunk, &prefs)
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bound, 64 * 1024), alignment: 16)
        defer { output.deallocate() }
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { input.deallocate() }
        var total: UInt64 = 0
        var n = try check(LZ4F_compressBegin(context, output.baseAddress, output.count, &prefs), inputPath, "LZ4F_compressBegin")
        try write(UnsafeRawBufferPointer(rebasing: output[0..<n]))
        total += UInt64(n)
        var offset: UInt64 = 0
        while offset < size {
            let want = Int(min(UInt64(chunk), size - offset))
            let got = pread(inputFD, input.baseAddress, want, off_t(offset))
            if got < 0 {
                if errno == EINTR { continue }
                throw ToolError.io(path: inputPath, operation: "pread", errno: errno)
            }
            guard got > 0 else { throw ToolError.io(path: inputPath, operation: "pread (file shrank)", errno: EIO) }
            n = try check(LZ4F_compressUpdate(context, output.baseAddress, output.count, input.baseAddress, got, nil),
                          inputPath, "LZ4F_compressUpdate")
            if n > 0 { try write(UnsafeRawBufferPointer(rebasing: output[0..<n])) }
            total += UInt64(n)
            offset += UInt64(got)
            progress?(offset)
        }
        n = try check(LZ4F_compressEnd(context, output.baseAddress, output.count, nil), inputPath, "LZ4F_compressEnd")
        try write(UnsafeRawBufferPointer(rebasing: output[0..<n]))
        return total + UInt64(n)
    }

    public struct Decompressed: Sendable {
        public var compressedBytes: UInt64
        public var bytes: UInt64
        public var contentSize: UInt64?
    }

    /// Decompresses one frame from `inputFD` through `write`. Not an LZ4
    /// frame → `.badInput`; damaged or truncated → `.corruptInput`.
    public static func decompress(
        inputFD: Int32, inputPath: String, write: (UnsafeRawBufferPointer) throws(ToolError) -> Void,
        progress: ((UInt64) -> Void)? = nil
    ) throws(ToolError) -> Decompressed {
        var context: OpaquePointer? = nil
        _ = try check(LZ4F_createDecompressionContext(&context, UInt32(LZ4F_VERSION)), inputPath, "LZ4F_createDecompressionContext")
        defer { LZ4F_freeDecompressionContext(context) }
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { input.deallocate() }
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 4 * chunk, alignment: 16)
        defer { output.deallocate() }
        var result = Decompressed(compressedBytes: 0, bytes: 0, contentSize: nil)
        var first = true
        var frameDone = false
        while true {
            let got = read(inputFD, input.baseAddress, input.count)
            if got < 0 {
                if errno == EINTR { continue }
                throw ToolError.io(path: inputPath, operation: "read", errno: errno)
            }
            if got == 0 { break }
            result.compressedBytes += UInt64(got)
            if frameDone { throw ToolError.corruptInput(path: inputPath, detail: "trailing data after the LZ4 frame") }
            if first {
                first = false
                guard got >= 4, input.loadUnaligned(as: UInt32.self).littleEndian == magic else {
                    throw ToolError.badInput(path: inputPath, detail: "not an LZ4 frame (bad magic); expected the output of `firn export`")
                }
            }
            var consumed = 0
            while consumed < got {
                var srcSize = got - consumed
                var dstSize = output.count
                let hint = try check(LZ4F_decompress(context, output.baseAddress, &dstSize,
                                                     input.baseAddress.map { $0 + consumed }, &srcSize, nil),
                                     inputPath, "LZ4 frame")
                consumed += srcSize
                if dstSize > 0 {
                    try write(UnsafeRawBufferPointer(rebasing: output[0..<dstSize]))
                    result.bytes += UInt64(dstSize)
                    progress?(result.bytes)
                }
                if hint == 0 {
                    frameDone = true
                    if consumed < got {
                        throw ToolError.corruptInput(path: inputPath, detail: "trailing data after the LZ4 frame")
                    }
                    break
                }
                if srcSize == 0 && dstSize == 0 { break }
            }
        }
        if first { throw ToolError.badInput(path: inputPath, detail: "empty input; expected an LZ4 frame") }
        guard frameDone else {
            throw ToolError.corruptInput(path: inputPath, detail: "the LZ4 frame is truncated (input ended after \(result.compressedBytes) bytes)")
        }
        return result
    }
}

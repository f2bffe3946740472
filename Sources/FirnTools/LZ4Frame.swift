import FirnCore
import CLZ4
#if canImport(Glibc)
import Glibc
#endif

/// Streaming LZ4 frames (the format of the `lz4` command) with a content
/// checksum and the content size in the header: compress a file into a
/// descriptor, decompress a descriptor into a file, in 1 MiB chunks.
package enum LZ4Frame {
    static let chunk = 1 << 20
    static let magic: UInt32 = 0x184D_2204

    static func check(_ code: Int, _ path: String, _ what: String) throws(ToolError) -> Int {
        if LZ4F_isError(code) != 0 {
            let name = String(cString: LZ4F_getErrorName(code))
            throw ToolError.corruptInput(path: path, detail: "\(what): \(name)")
        }
        return code
    }

    package struct Decompressed: Sendable {
        package var compressedBytes: UInt64
        package var bytes: UInt64
        package var contentSize: UInt64?
    }

    /// Decompresses one frame from `inputFD` through `write`. Not an LZ4
    /// frame → `.badInput`; damaged or truncated → `.corruptInput`.
    /// `progress` hears the bytes written and the frame's bytes read so far.
    package static func decompress(
        inputFD: Int32, inputPath: String, write: (UnsafeRawBufferPointer) throws(ToolError) -> Void,
        progress: ((_ written: UInt64, _ read: UInt64) -> Void)? = nil
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
            let got: Int
            switch SystemCall.result({ read(inputFD, input.baseAddress, input.count) }) {
            case let .success(count): got = count
            case let .failure(error): throw ToolError.io(path: inputPath, operation: "read", errno: error.code)
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
                    progress?(result.bytes, result.compressedBytes)
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

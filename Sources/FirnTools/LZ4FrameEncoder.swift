import CLZ4

/// Writes one LZ4 frame (the `lz4` command's format) incrementally: the
/// header with the content size and a content checksum, then the data as it
/// arrives, then the end mark. Output goes through `write` in pieces.
/// Not thread-safe: it is created on one thread and then used only by the
/// one thread it is handed to (export's compressing thread).
final class LZ4FrameEncoder: @unchecked Sendable {
    private var context: OpaquePointer?
    private var output: UnsafeMutableRawBufferPointer
    private let path: String
    private let write: (UnsafeRawBufferPointer) throws(ToolError) -> Void
    private(set) var compressedBytes: UInt64 = 0

    init(
        contentSize: UInt64, level: Int32, path: String,
        write: @escaping (UnsafeRawBufferPointer) throws(ToolError) -> Void
    ) throws(ToolError) {
        self.path = path
        self.write = write
        var prefs = LZ4F_preferences_t()
        prefs.frameInfo.blockSizeID = LZ4F_max4MB
        prefs.frameInfo.blockMode = LZ4F_blockLinked
        prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled
        prefs.frameInfo.contentSize = contentSize
        prefs.compressionLevel = level
        output = UnsafeMutableRawBufferPointer.allocate(
            byteCount: max(LZ4F_compressBound(LZ4Frame.chunk, &prefs), 64 * 1024), alignment: 16)
        _ = try LZ4Frame.check(LZ4F_createCompressionContext(&context, UInt32(LZ4F_VERSION)), path, "LZ4F_createCompressionContext")
        let n = try LZ4Frame.check(LZ4F_compressBegin(context, output.baseAddress, output.count, &prefs), path, "LZ4F_compressBegin")
        try emit(n)
    }

    deinit {
        LZ4F_freeCompressionContext(context)
        output.deallocate()
    }

    /// Compresses `bytes`, in pieces of at most `LZ4Frame.chunk`.
    func update(_ bytes: UnsafeRawBufferPointer) throws(ToolError) {
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + LZ4Frame.chunk)
            let piece = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            let n = try LZ4Frame.check(
                LZ4F_compressUpdate(context, output.baseAddress, output.count, piece.baseAddress, piece.count, nil),
                path, "LZ4F_compressUpdate")
            try emit(n)
            start = end
        }
    }

    /// Writes the end mark and the content checksum; returns the frame's size.
    func finish() throws(ToolError) -> UInt64 {
        let n = try LZ4Frame.check(LZ4F_compressEnd(context, output.baseAddress, output.count, nil), path, "LZ4F_compressEnd")
        try emit(n)
        return compressedBytes
    }

    private func emit(_ count: Int) throws(ToolError) {
        guard count > 0 else { return }
        try write(UnsafeRawBufferPointer(rebasing: output[0..<count]))
        compressedBytes += UInt64(count)
    }
}

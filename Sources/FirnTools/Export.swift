import FirnCore
#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// `firn export`: a hot, consistent snapshot of a version as one standard
/// LZ4 frame of its packed image (`lz4 -d` gives a valid Firn file). The
/// version is pinned (kind `export`) while the packed writer streams the
/// image; this thread packs while two workers compress 1 MiB blocks
/// (`ParallelBlockCompressor`), a few blocks in flight at most. Nothing is
/// written but the output.
///
/// To a file, one pass: the image's body (pages 2…) is packed, compressed
/// and written after a reserved front; the frame header (content size) and
/// the slot pages, which need every root's checksum, are written into that
/// front at the end, the slot pages as a stored block of known size. To
/// stdout, which cannot seek, the packed writer's two passes (the first
/// computes the commit record) put the image out in order.
package enum Export {
    package struct Options: Sendable {
        package var path: String
        /// "-" streams to stdout.
        package var output: String
        package var version: UInt64?
        package var level: Int32 = 0
        package var force = false
        package init(path: String, output: String) {
            self.path = path
            self.output = output
        }
    }

    package struct Report: Codable, Sendable {
        package var path: String
        package var output: String
        package var version: UInt64
        package var imageBytes: UInt64
        package var compressedBytes: UInt64
        package var trees: Int
        package var entries: UInt64
        package var seconds: Double
        package var pinned: Bool
        package var note: String?
    }

    package static func run(_ options: Options, progress: ProgressHandler? = nil) throws -> Report {
        // To a file, the current version with the source's check left to
        // the packing pass, which reads and checks every page
        // (`ReadAccess.deferringCheck`). Not to stdout: what went out of a
        // try that then met a damaged page cannot be taken back.
        try ReadAccess.deferringCheck(if: options.version == nil && options.output != "-") {
            try export(options, progress: progress, defersCheck: $0)
        }
    }

    private static func export(_ options: Options, progress: ProgressHandler?, defersCheck: Bool) throws -> Report {
        let started = monotonicNanoseconds()
        let toStdout = options.output == "-"
        // Refuse an existing output before doing any work.
        let output = toStdout ? nil : try OutputFile(destination: options.output, replace: options.force)
        defer { output?.discard() }
        let access = try ReadAccess.open(options.path, version: options.version, kind: .export, label: "firn export",
                                         defersCheck: defersCheck)
        defer { access.close() }
        let destination = toStdout ? "stdout" : options.output
        let snapshot = access.snapshot
        let pageSize = snapshot.store.pageSize
        let slotBytes = 2 * pageSize
        guard slotBytes <= LZ4BlockFrame.maxBlockSize else {
            throw ToolError.badInput(path: options.path, detail: "page size \(pageSize) is too large for an LZ4 block")
        }
        // The file path: the header and the slot pages' stored block come
        // first, of known size; the body is written after them.
        let front = toStdout ? 0 : LZ4BlockFrame.headerSize + LZ4BlockFrame.blockOverhead + slotBytes
        // Where the next block goes, and where the range not yet handed to
        // the disk starts: every `writebackStep` bytes written start their
        // writeback, so the fsync before the rename waits for the last
        // stretch only (the output is about a core's compression speed
        // behind; without this the whole frame waited for the disk at the end).
        let position = Locked((next: UInt64(front), unflushed: UInt64(front)))
        let write: (UnsafeRawBufferPointer) throws(ToolError) -> Void = { bytes throws(ToolError) in
            if let output {
                let at = position.withLock { $0.next }
                if let error = SystemCall.writeAll(output.fd, bytes, at: at) {
                    throw ToolError.writing(destination, "write", errno: error.code)
                }
                let end = at + UInt64(bytes.count)
                let flush = position.withLock { state -> (UInt64, UInt64)? in
                    state.next = end
                    guard end - state.unflushed >= Export.writebackStep else { return nil }
                    defer { state.unflushed = end }
                    return (state.unflushed, end - state.unflushed)
                }
                // Only a hint: a file system without it still gets the fsync.
                if let (from, count) = flush { _ = SystemCall.startWriteback(output.fd, offset: from, count: count) }
            } else {
                try OutputFile.writeAll(fd: 1, bytes, path: "stdout")
            }
        }
        let compressor = ParallelBlockCompressor(
            workers: Export.workers, inFlight: Export.blocksInFlight, blockSize: Export.blockSize,
            level: options.level, write: write)
        defer { compressor.stop() }
        let total = snapshot.info.logicalPageCount
        let reportProgress: (UInt64) -> Void = { pages in
            if pages % 256 == 0 { progress?(ToolProgress(phase: .exporting, done: pages, total: total, unit: .pages)) }
        }
        // Hands packed bytes to the workers; stops packing once they failed.
        let submit: (UnsafeRawBufferPointer) throws(FirnError) -> Void = { chunk throws(FirnError) in
            do throws(ToolError) { try compressor.submit(chunk) } catch {
                throw FirnError.misuse("export stopped: compression failed")
            }
        }
        let summary: PackedImageWriter.Summary
        var compressed: UInt64
        do {
            if toStdout {
                summary = try PackedImageWriter.stream(snapshot, progress: reportProgress, planned: { plan throws(FirnError) in
                    let header = LZ4BlockFrame.header(contentSize: plan.bytes)
                    let failure: ToolError? = header.withUnsafeBytes { bytes in
                        do throws(ToolError) { try write(bytes); return nil } catch { return error }
                    }
                    if let failure { compressor.fail(failure); throw FirnError.misuse("export stopped: \(failure)") }
                }, into: submit)
                compressed = UInt64(LZ4BlockFrame.headerSize)
            } else {
                let slots = UnsafeMutableRawBufferPointer.allocate(byteCount: slotBytes, alignment: 16)
                defer { slots.deallocate() }
                var slotPagesSeen = 0
                // The body is packed straight into the compressor's blocks.
                summary = try PackedImageWriter.streamSlotsLast(snapshot, leasing: compressor, progress: reportProgress) {
                    (bytes, first) throws(FirnError) in
                    if first >= 2 { return try submit(bytes) }
                    // A slot page (0 or 1), alone: kept for the front.
                    let start = Int(first) * pageSize
                    guard bytes.count == pageSize else { throw FirnError.misuse("a slot page of \(bytes.count) bytes") }
                    UnsafeMutableRawBufferPointer(rebasing: slots[start..<(start + pageSize)]).copyMemory(from: bytes)
                    slotPagesSeen += 1
                }
                guard slotPagesSeen == 2 else { throw FirnError.misuse("the packed image gave \(slotPagesSeen) slot pages") }
                try Self.writeFront(contentSize: summary.bytes, slots: UnsafeRawBufferPointer(slots), to: output, path: destination)
                compressed = UInt64(front)
            }
        } catch {
            compressor.stop()
            if let failure = compressor.failure { throw failure }
            throw error
        }
        compressed += try compressor.finish()
        let endFailure: ToolError? = LZ4BlockFrame.endMark.withUnsafeBytes { bytes in
            do throws(ToolError) { try write(bytes); return nil } catch { return error }
        }
        if let endFailure { throw endFailure }
        compressed += UInt64(LZ4BlockFrame.endMarkSize)
        // Every page of the version checked out: the newest record passes
        // the check it skipped, and is published as a first opener would.
        try access.store.acceptDeferredCheck()
        access.close()
        try output?.commit()
        return Report(path: options.path, output: options.output, version: summary.version, imageBytes: summary.bytes,
                      compressedBytes: compressed, trees: summary.trees, entries: summary.entries,
                      seconds: elapsedSeconds(since: started), pinned: access.pinned, note: access.note)
    }

    /// Compressing threads: both cores, the packer on one of them too.
    static let workers = 2
    static let blockSize = 1 << 20
    static let blocksInFlight = 4
    static let writebackStep: UInt64 = 8 << 20

    /// The frame header and the slot pages' stored block, at offset 0 of
    /// the output (the reserved front).
    private static func writeFront(
        contentSize: UInt64, slots: UnsafeRawBufferPointer, to output: OutputFile?, path: String
    ) throws(ToolError) {
        guard let output else { return }
        let front = LZ4BlockFrame.header(contentSize: contentSize) + LZ4BlockFrame.stored(slots)
        let failure = front.withUnsafeBytes { SystemCall.writeAll(output.fd, $0, at: 0) }
        if let failure { throw ToolError.writing(path, "write", errno: failure.code) }
    }
}

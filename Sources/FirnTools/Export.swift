import FirnCore
#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// `firn export`: a hot, consistent snapshot of a version as one standard
/// LZ4 frame of its packed image (`lz4 -d` gives a valid Firn file). The
/// version is pinned (kind `export`) while the packed writer streams the
/// image in file order (a first pass computes the commit record at its
/// front); this thread packs while another compresses, 1 MiB at a time, with
/// a few chunks in flight at most. Nothing is written but the output.
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
        let started = monotonicNanoseconds()
        let toStdout = options.output == "-"
        // Refuse an existing output before doing any work.
        let output = toStdout ? nil : try OutputFile(destination: options.output, replace: options.force)
        defer { output?.discard() }
        let access = try ReadAccess.open(options.path, version: options.version, kind: .export, label: "firn export")
        defer { access.close() }
        let destination = toStdout ? "stdout" : options.output
        let write: (UnsafeRawBufferPointer) throws(ToolError) -> Void = { bytes throws(ToolError) in
            if let output { try output.write(bytes) } else { try OutputFile.writeAll(fd: 1, bytes, path: "stdout") }
        }
        let pipe = ChunkPipe(capacity: 4)
        let compressor = Compressor()
        let done = DispatchSemaphore(value: 0)
        var imageBytes: UInt64 = 0
        let summary: PackedImageWriter.Summary
        do {
            let total = access.snapshot.info.logicalPageCount
            summary = try PackedImageWriter.stream(access.snapshot, progress: { pages in
                if pages % 256 == 0 { progress?(ToolProgress(phase: .exporting, done: pages, total: total, unit: .pages)) }
            }, planned: { plan throws(FirnError) in
                imageBytes = plan.bytes
                do throws(ToolError) {
                    let encoder = try LZ4FrameEncoder(contentSize: plan.bytes, level: options.level, path: destination, write: write)
                    DispatchQueue.global().async {
                        compressor.run(encoder, from: pipe)
                        done.signal()
                    }
                } catch {
                    compressor.fail(error)
                    done.signal()
                }
            }, into: { chunk throws(FirnError) in
                // Stop packing early once compression has failed.
                if compressor.failure != nil { throw FirnError.misuse("export stopped: compression failed") }
                pipe.push(Array(chunk))
            })
        } catch {
            if imageBytes > 0 {
                pipe.close()
                done.wait()
            }
            if let failure = compressor.failure { throw failure }
            throw error
        }
        pipe.close()
        done.wait()
        if let failure = compressor.failure { throw failure }
        let compressed = compressor.compressedBytes
        access.close()
        try output?.commit()
        return Report(path: options.path, output: options.output, version: summary.version, imageBytes: summary.bytes,
                      compressedBytes: compressed, trees: summary.trees, entries: summary.entries,
                      seconds: elapsedSeconds(since: started), pinned: access.pinned, note: access.note)
    }

    /// The compressing side of an export: drains the pipe into the encoder
    /// on its own thread and keeps the first error.
    final class Compressor: @unchecked Sendable {
        private let state = Locked<(failure: ToolError?, bytes: UInt64)>((nil, 0))
        var failure: ToolError? { state.withLock { $0.failure } }
        var compressedBytes: UInt64 { state.withLock { $0.bytes } }

        func fail(_ error: ToolError) { state.withLock { if $0.failure == nil { $0.failure = error } } }

        func run(_ encoder: LZ4FrameEncoder, from pipe: ChunkPipe) {
            while let chunk = pipe.pop() {
                // After a failure, keep draining so the packing thread never blocks.
                guard failure == nil else { continue }
                do throws(ToolError) {
                    let result: Result<Void, ToolError> = chunk.withUnsafeBytes { bytes in
                        Result { () throws(ToolError) in try encoder.update(bytes) }
                    }
                    try result.get()
                } catch {
                    fail(error)
                }
            }
            guard failure == nil else { return }
            do throws(ToolError) {
                let bytes = try encoder.finish()
                state.withLock { $0.bytes = bytes }
            } catch {
                fail(error)
            }
        }
    }
}

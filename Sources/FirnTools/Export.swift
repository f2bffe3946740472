#if canImport(Glibc)
import Glibc
#endif

/// `firn export`: a hot, consistent snapshot of a version as one standard
/// LZ4 frame of its packed image (`lz4 -d` gives a valid Firn file). The
/// version is pinned (kind `export`) while the image is written to a
/// temporary file (the packed writer writes the commit slots last), which is
/// then compressed in 1 MiB chunks into the output.
public enum Export {
    public struct Options: Sendable {
        public var path: String
        /// "-" streams to stdout.
        public var output: String
        public var version: UInt64?
        public var level: Int32 = 0
        public var force = false
        public init(path: String, output: String) {
            self.path = path
            self.output = output
        }
    }

    public struct Report: Codable, Sendable {
        public var path: String
        public var output: String
        public var version: UInt64
        public var imageBytes: UInt64
        public var compressedBytes: UInt64
        public var trees: Int
        public var entries: UInt64
        public var seconds: Double
        public var pinned: Bool
        public var note: String?
    }

    public static func run(_ options: Options, progress: ProgressHandler? = nil) throws -> Report {
        let started = wallClockNanoseconds()
        let toStdout = options.output == "-"
        // Refuse an existing output before doing any work.
        let output = toStdout ? nil : try OutputFile(destination: options.output, replace: options.force)
        defer { output?.discard() }
        let access = try ReadAccess.open(options.path, version: options.version, kind: .export, label: "firn export")
        defer { access.close() }
        let imageDirectory = toStdout ? temporaryDirectory() : OutputFile.directory(of: options.output)
        let image = try OutputFile(destination: "\(imageDirectory)/firn-export-image", replace: true, directory: imageDirectory)
        defer { image.discard() }
        let file = try POSIXFile(path: image.temporaryPath, writable: true)
        let total = access.snapshot.info.logicalPageCount
        let summary = try PackedImageWriter.write(access.snapshot, to: file) { pages in
            if pages % 256 == 0 { progress?(ToolProgress(phase: "writing image", done: pages, total: total, unit: "pages")) }
        }
        file.close()
        access.close()
        let compressed = try LZ4Frame.compress(
            inputFD: image.fd, size: summary.bytes, level: options.level, inputPath: image.temporaryPath,
            write: { (bytes) throws(ToolError) in
                if let output { try output.write(bytes) } else { try OutputFile.writeAll(fd: 1, bytes, path: "stdout") }
            },
            progress: { done in progress?(ToolProgress(phase: "compressing", done: done, total: summary.bytes, unit: "bytes")) })
        image.discard()
        try output?.commit()
        return Report(path: options.path, output: options.output, version: summary.version, imageBytes: summary.bytes,
                      compressedBytes: compressed, trees: summary.trees, entries: summary.entries,
                      seconds: Double(wallClockNanoseconds() - started) / 1e9, pinned: access.pinned, note: access.note)
    }

    static func temporaryDirectory() -> String {
        if let dir = getenv("TMPDIR").map({ String(cString: $0) }), !dir.isEmpty { return dir }
        return "/tmp"
    }
}

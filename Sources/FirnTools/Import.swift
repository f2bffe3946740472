import FirnCore
#if canImport(Glibc)
import Glibc
#endif

/// `firn import`: an LZ4-framed snapshot (from `firn export`, or `lz4` of a
/// Firn file) decompressed into a temporary file next to the destination,
/// synced, verified, and only then renamed into place.
package enum Import {
    package struct Options: Sendable {
        /// "-" reads stdin.
        package var input: String
        package var output: String
        package var force = false
        package init(input: String, output: String) {
            self.input = input
            self.output = output
        }
    }

    package struct Report: Codable, Sendable {
        package var input: String
        package var output: String
        package var version: UInt64
        package var compressedBytes: UInt64
        package var bytes: UInt64
        package var replaced: Bool
        package var trees: [VerifiedTree]
        package var seconds: Double
    }

    package static func run(_ options: Options, progress: ProgressHandler? = nil) throws -> Report {
        let started = monotonicNanoseconds()
        var fd: Int32 = 0
        if options.input != "-" {
            try DatabaseInput.checkRegularFile(options.input)
            fd = open(options.input, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw ToolError.io(path: options.input, operation: "open", errno: errno) }
        }
        defer { if fd != 0 { close(fd) } }
        let replaced = DatabaseInput.fileExists(options.output)
        let output = try OutputFile(destination: options.output, replace: options.force)
        defer { output.discard() }
        // A database someone has open must not be swapped under them, and
        // nobody may open the old file until the new one is recorded in the
        // lock file: hold the database exclusively from here to the end
        // (the lock file is created if missing, so an opener racing us
        // waits on it too). Without --force the destination must not exist:
        // OutputFile refuses one that appears meanwhile at commit.
        var guardLock: LockFile? = nil
        if options.force {
            guardLock = try LockFile.open(databasePath: options.output)
            try guardLock?.tryExclusiveSession()
        }
        defer { guardLock?.close() }
        let inputName = options.input == "-" ? "stdin" : options.input
        // From a file, the part of it read (its size is known: a bar); from
        // stdin, the bytes written (no total: a count).
        var info = stat()
        let inputBytes: UInt64? = options.input != "-" && fstat(fd, &info) == 0 && info.st_size > 0 ? UInt64(info.st_size) : nil
        let result = try LZ4Frame.decompress(
            inputFD: fd, inputPath: inputName,
            write: { (bytes) throws(ToolError) in try output.write(bytes) },
            progress: { written, read in
                progress?(inputBytes.map { ToolProgress(phase: .decompressing, done: read, total: $0, unit: .bytes) }
                    ?? ToolProgress(phase: .decompressing, done: written, total: nil, unit: .bytes))
            })
        try output.sync()
        let report: VerifyReport
        do {
            report = try Verify.verifyFile(output.temporaryPath, shownAs: inputName)
        } catch let error as FirnError {
            // The decompressed bytes are not a Firn file: the input is at fault.
            switch error {
            case let .notAFirnFile(_, detail): throw ToolError.badInput(path: inputName, detail: "does not hold a Firn database: \(detail)")
            case let .corrupt(_, page, _, detail):
                throw ToolError.corruptInput(path: inputName, detail: "the database inside is corrupt\(page.map { " at page \($0)" } ?? ""): \(detail)")
            default: throw error
            }
        }
        try output.commit()
        if let guardLock { try guardLock.didReplaceDataFile(version: report.version) }
        return Report(input: options.input, output: options.output, version: report.version,
                      compressedBytes: result.compressedBytes, bytes: result.bytes, replaced: replaced,
                      trees: report.trees, seconds: elapsedSeconds(since: started))
    }
}

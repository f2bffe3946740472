import Foundation
import Testing
import FirnTools
import FirnTestSupport

/// Export as a standard LZ4 frame, import with verification.
@Suite struct ExportImportTests {
    static func shell(_ command: String) throws -> FirnRun {
        try FirnRun.run(["-c", command], executable: "/bin/sh")
    }

    @Test func exportIsAStandardLZ4FrameOfAValidFirnFile() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        let run = try FirnRun.run(["export", db, "-o", dir.file("snap.lz4"), "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        struct ExportJSON: Decodable { let version: UInt64; let imageBytes: UInt64; let compressedBytes: UInt64 }
        let report = try run.json(ExportJSON.self)
        #expect(report.version == 13 && report.compressedBytes < report.imageBytes)
        #expect(try Self.shell("lz4 -t '\(dir.file("snap.lz4"))'").status == 0)
        #expect(try Self.shell("lz4 -d -q '\(dir.file("snap.lz4"))' '\(dir.file("plain.firn"))'").status == 0)
        let size = try FileManager.default.attributesOfItem(atPath: dir.file("plain.firn"))[.size] as? UInt64
        #expect(size == report.imageBytes)
        let verify = try FirnRun.run(["verify", dir.file("plain.firn")])
        #expect(verify.status == 0, "\(verify.stdout)")
        #expect(try FirnRun.run(["dump", dir.file("plain.firn"), "--entries"]).stdout
                == FirnRun.run(["dump", db, "--entries"]).stdout)
        // No temporary files are left behind.
        #expect(dir.entries().filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test func exportToStdoutStreamsTheFrame() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        let run = try Self.shell("'\(BuiltProducts.firn)' export '\(db)' -o - --level 9 | lz4 -d -q > '\(dir.file("piped.firn"))'")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try FirnRun.run(["verify", dir.file("piped.firn")]).status == 0)
    }

    /// An image of many 1 MiB blocks, some incompressible (stored raw),
    /// exported to a file (one pass, front written last) and to stdout (two
    /// passes): both frames decompress to the same valid image, and both
    /// are whole frames `lz4 -t` accepts.
    @Test func multiBlockExportToAFileAndToStdoutGiveTheSameImage() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase("big.firn", commits: 40, randomBytes: 3_000_000)
        let run = try FirnRun.run(["export", db, "-o", dir.file("file.lz4"), "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        struct ExportJSON: Decodable { let imageBytes: UInt64; let compressedBytes: UInt64 }
        let report = try run.json(ExportJSON.self)
        #expect(report.imageBytes > 3 << 20)
        let frame = try Data(contentsOf: URL(fileURLWithPath: dir.file("file.lz4")))
        #expect(UInt64(frame.count) == report.compressedBytes)
        let piped = try Self.shell("'\(BuiltProducts.firn)' export '\(db)' -o - > '\(dir.file("stdout.lz4"))'")
        #expect(piped.status == 0, "\(piped.stderr)")
        for name in ["file", "stdout"] {
            #expect(try Self.shell("lz4 -t -q '\(dir.file(name + ".lz4"))'").status == 0)
            #expect(try Self.shell("lz4 -d -q '\(dir.file(name + ".lz4"))' '\(dir.file(name + ".firn"))'").status == 0)
            #expect(try FirnRun.run(["verify", dir.file(name + ".firn")]).status == 0)
            #expect(try FirnRun.run(["dump", dir.file(name + ".firn"), "--entries"]).stdout
                    == FirnRun.run(["dump", db, "--entries"]).stdout)
        }
        let fromFile = try Data(contentsOf: URL(fileURLWithPath: dir.file("file.firn")))
        #expect(UInt64(fromFile.count) == report.imageBytes)
        #expect(fromFile == (try Data(contentsOf: URL(fileURLWithPath: dir.file("stdout.firn")))))
        let imported = try FirnRun.run(["import", dir.file("file.lz4"), "-o", dir.file("imported.firn")])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("imported.firn"))) == fromFile)
    }

    /// A flipped byte anywhere in an export — the slot pages' block at the
    /// front (written last), a compressed block, a stored block of random
    /// pages — is caught by `lz4 -t` (the frame's block checksums) and by
    /// `firn import` (65).
    @Test func damageAnywhereInAnExportIsDetected() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase("big.firn", commits: 40, randomBytes: 2_000_000)
        #expect(try FirnRun.run(["export", db, "-o", dir.file("snap.lz4")]).status == 0)
        #expect(try Self.shell("'\(BuiltProducts.firn)' export '\(db)' -o - > '\(dir.file("piped.lz4"))'").status == 0)
        for name in ["snap", "piped"] {
            let frame = try Data(contentsOf: URL(fileURLWithPath: dir.file(name + ".lz4")))
            // Past the 15-byte header and the first block's size field; then the middle, then near the end.
            for offset in [15 + 4 + 40, frame.count / 2, frame.count - 64] {
                var damaged = frame
                damaged[offset] ^= 0x10
                let path = dir.file("\(name)-\(offset).lz4")
                try damaged.write(to: URL(fileURLWithPath: path))
                #expect(try Self.shell("lz4 -t -q '\(path)' 2>/dev/null").status != 0, "\(name): a flip at \(offset) of \(frame.count)")
                let imported = try FirnRun.run(["import", path, "-o", dir.file("out.firn"), "--force"])
                #expect(imported.status == 65 && imported.isCleanFailure, "\(name): a flip at \(offset): \(imported.stderr)")
            }
        }
    }

    @Test func importVerifiesThenCreatesAndRefusesToOverwrite() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        #expect(try FirnRun.run(["export", db, "-o", dir.file("snap.lz4")]).status == 0)
        let run = try FirnRun.run(["import", dir.file("snap.lz4"), "-o", dir.file("restored.firn")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try FirnRun.run(["verify", dir.file("restored.firn")]).status == 0)
        let again = try FirnRun.run(["import", dir.file("snap.lz4"), "-o", dir.file("restored.firn")])
        #expect(again.status == 73 && again.isCleanFailure && again.stderr.contains("--force"))
        let forced = try FirnRun.run(["import", dir.file("snap.lz4"), "-o", dir.file("restored.firn"), "--force", "--json"])
        #expect(forced.status == 0 && forced.stdout.contains("\"replaced\" : true"))
        let stdin = try FirnRun.run(["import", "-", "-o", dir.file("fromstdin.firn")],
                                    stdin: try Data(contentsOf: URL(fileURLWithPath: dir.file("snap.lz4"))))
        #expect(stdin.status == 0, "\(stdin.stderr)")
        #expect(dir.entries().filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test func importOfABadSnapshotKeepsTheOriginal() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        #expect(try FirnRun.run(["export", db, "-o", dir.file("snap.lz4")]).status == 0)
        let original = try Data(contentsOf: URL(fileURLWithPath: db))
        // Not an LZ4 frame at all: 66.
        try Data("hello, not lz4".utf8).write(to: URL(fileURLWithPath: dir.file("text.lz4")))
        let notLZ4 = try FirnRun.run(["import", dir.file("text.lz4"), "-o", db, "--force"])
        #expect(notLZ4.status == 66 && notLZ4.isCleanFailure)
        // A truncated frame: 65.
        let frame = try Data(contentsOf: URL(fileURLWithPath: dir.file("snap.lz4")))
        try frame.prefix(frame.count / 2).write(to: URL(fileURLWithPath: dir.file("half.lz4")))
        let truncated = try FirnRun.run(["import", dir.file("half.lz4"), "-o", db, "--force"])
        #expect(truncated.status == 65 && truncated.isCleanFailure && truncated.stderr.contains("truncated"))
        // A flipped byte inside: the frame checksum (or the block) catches it: 65.
        var flipped = frame
        flipped[flipped.count / 2] ^= 0x40
        try flipped.write(to: URL(fileURLWithPath: dir.file("flipped.lz4")))
        let damaged = try FirnRun.run(["import", dir.file("flipped.lz4"), "-o", db, "--force"])
        #expect(damaged.status == 65 && damaged.isCleanFailure)
        // An LZ4 frame of something that is not a Firn file: 66.
        #expect(try Self.shell("echo 'plain text' | lz4 -q -z > '\(dir.file("other.lz4"))'").status == 0)
        let other = try FirnRun.run(["import", dir.file("other.lz4"), "-o", db, "--force"])
        #expect(other.status == 66 && other.isCleanFailure)
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == original)
        #expect(dir.entries().filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test func outputProblemsExit73() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        // No space: /dev/full.
        let full = try Self.shell("'\(BuiltProducts.firn)' export '\(db)' -o - > /dev/full")
        #expect(full.status == 73 && full.isCleanFailure)
        // Output directory missing: 73.
        let missing = try FirnRun.run(["export", db, "-o", dir.file("no/such/dir/x.lz4")])
        #expect(missing.status == 73 && missing.isCleanFailure)
        // Existing output without --force: 73.
        #expect(FileManager.default.createFile(atPath: dir.file("exists.lz4"), contents: Data()))
        #expect(try FirnRun.run(["export", db, "-o", dir.file("exists.lz4")]).status == 73)
        // A directory as the output, forced: refused before the work (73), not a failed rename after it.
        try FileManager.default.createDirectory(atPath: dir.file("adir"), withIntermediateDirectories: false)
        let isDir = try FirnRun.run(["export", db, "-o", dir.file("adir"), "--force"])
        #expect(isDir.status == 73 && isDir.isCleanFailure)
        // A closed pipe on stdout: its reader is done, not an error: 0.
        let noisy = try dir.sampleDatabase("noisy.firn", commits: 1, randomBytes: 1_000_000)
        let epipe = try FirnRun.run(["-c", "'\(BuiltProducts.firn)' export '\(noisy)' -o - 2>/dev/null | head -c 1 > /dev/null; echo ${PIPESTATUS[0]}"],
                                    executable: "/bin/bash")
        #expect(epipe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        #expect(dir.entries().filter { $0.hasPrefix(".") }.isEmpty)
    }
}

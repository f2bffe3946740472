import FirnTestSupport
import Foundation
import Testing

/// Progress as a terminal shows it: on a TTY (here `script`'s pseudo
/// terminal) long commands redraw one line in place with a bar, percent,
/// rate and time left; `load` a count; nothing with --no-progress, nothing
/// when stderr is not a terminal unless --progress.
@Suite struct ProgressTests {
    static let redraw = "\r\u{1B}[2K"

    /// `firn ARGS` with stdout and stderr on a pseudo terminal: what it showed, and its status.
    static func onTerminal(_ arguments: [String], input: String? = nil) throws -> (status: Int32, shown: String) {
        let command = ([BuiltProducts.firn] + arguments).map { "'\($0)'" }.joined(separator: " ")
            + (input.map { " < '\($0)'" } ?? "")
        let run = try ChildProcess.run("/usr/bin/script", ["-qec", command, "/dev/null"], timeout: .seconds(120))
        return (run.status, run.stdout)
    }

    @Test func longCommandsDrawABarOnATerminal() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase(commits: 2, randomBytes: 8_000_000)

        let export = try Self.onTerminal(["export", db, "-o", dir.file("a.lz4")])
        #expect(export.status == 0, "\(export.shown)")
        #expect(export.shown.contains(Self.redraw + "exporting ["), "\(export.shown)")
        #expect(export.shown.contains("pages/s") && export.shown.contains("ETA "), "\(export.shown)")
        #expect(export.shown.contains("%"))

        let compact = try Self.onTerminal(["compact", db, "-o", dir.file("c.firn")])
        #expect(compact.status == 0 && compact.shown.contains(Self.redraw + "writing ["), "\(compact.shown)")

        // verify of a large file showed nothing.
        let verify = try Self.onTerminal(["verify", db])
        #expect(verify.status == 0 && verify.shown.contains(Self.redraw + "verifying ["), "\(verify.shown)")

        // import: the part of the snapshot read, of its size.
        let restored = try Self.onTerminal(["import", dir.file("a.lz4"), "-o", dir.file("r.firn")])
        #expect(restored.status == 0 && restored.shown.contains(Self.redraw + "decompressing ["), "\(restored.shown)")
        #expect(restored.shown.contains("B/s"), "\(restored.shown)")

        let lines = dir.file("lines.txt")
        try (0..<30_000).map { "\"t\"\t\"k\($0)\"\t\"v\"\n" }.joined().write(toFile: lines, atomically: false, encoding: .utf8)
        let load = try Self.onTerminal(["load", dir.file("l.firn"), "--batch", "1000"], input: lines)
        #expect(load.status == 0 && load.shown.contains(Self.redraw + "loading "), "\(load.shown)")
        #expect(!load.shown.contains("loading [") && !load.shown.contains("ETA"), "load shows a count only: \(load.shown)")

        let quiet = try Self.onTerminal(["export", db, "-o", dir.file("b.lz4"), "--no-progress"])
        #expect(quiet.status == 0 && !quiet.shown.contains(Self.redraw), "\(quiet.shown)")
    }

    @Test func offATerminalOnlyWhenAsked() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase(commits: 2, randomBytes: 4_000_000)
        let plain = try FirnRun.run(["export", db, "-o", dir.file("a.lz4")])
        #expect(plain.status == 0 && plain.stderr.isEmpty, "\(plain.stderr)")
        let asked = try FirnRun.run(["export", db, "-o", dir.file("b.lz4"), "--progress"])
        #expect(asked.status == 0 && asked.stderr.contains("exporting ["), "\(asked.stderr)")
        // The last one given wins.
        let last = try FirnRun.run(["export", db, "-o", dir.file("c.lz4"), "--progress", "--no-progress"])
        #expect(last.status == 0 && last.stderr.isEmpty, "\(last.stderr)")
    }
}

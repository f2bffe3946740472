import Firn
import FirnTools
import Foundation

/// `firn demo`: builds `DIR/demo.firn` with the Firn SDK (the documents'
/// Person and Dog, a few hundred commits), starts a second `firn` process
/// that caches frozen results of an early version (`firn demo-app cache`),
/// commits on while it holds them, and runs the other commands on the file
/// as a user would — so the tour shows the documents' warning (caching
/// frozen objects grows the file) and who causes it. The child is stopped
/// before it returns; the files stay in DIR.
public enum Demo {
    public struct Options: Sendable {
        /// nil: a new temporary directory.
        public var directory: String?
        /// The `firn` binary to run for the child and the tour.
        public var executable: String
        public var commitsBeforePin = 120
        public var commitsAfterPin = 240
        /// Whether the tour's commands print to stdout (off for `--json`,
        /// whose stdout is the report alone).
        public var showSteps = true
        public init(directory: String?, executable: String) {
            self.directory = directory
            self.executable = executable
        }
    }

    public struct Report: Codable, Sendable {
        public var directory: String
        public var database: String
        public var commits: Int
        /// The version the child's frozen objects read.
        public var pinnedVersion: UInt64
        public var cachePID: Int32
        /// The frozen objects the child cached, as its pin counted them.
        public var frozenObjects: UInt64
        public var failedSteps: [String]
    }

    public static func run(_ options: Options, say: (String) -> Void) throws -> Report {
        let directory = try prepareDirectory(options.directory)
        let database = directory + "/demo.firn"
        for name in ["demo.firn", "demo.firn.lock", "demo-compact.firn", "demo.firn.lz4", "demo-restored.firn", "demo-restored.firn.lock", "demo-compact.firn.lock"] {
            unlink(directory + "/" + name)
        }
        let total = options.commitsBeforePin + options.commitsAfterPin
        say("Building \(database) with the Firn SDK: Person and Dog objects, \(total) commits…")
        var writer = try DemoWriter(path: database)
        for _ in 0..<options.commitsBeforePin { try writer.commit() }

        let child = Process()
        child.executableURL = URL(fileURLWithPath: options.executable)
        child.arguments = ["demo-app", "cache", database, "--no-progress"]
        let pipe = Pipe()
        child.standardOutput = pipe
        try child.run()
        defer { stop(child) }
        let line = readLine(pipe.fileHandleForReading)
        let pin = writer.database.store.lockFile?.pins().first { $0.pid == child.processIdentifier && $0.kind == .frozen }
        guard line.hasPrefix("cached"), let pin else {
            throw FirnError.misuse("demo: the caching child did not start (\(line.isEmpty ? "no output" : line))")
        }
        say("Started pid \(child.processIdentifier), a dashboard that froze `objects(Dog.self).sorted(byKeyPath: \"name\")` "
            + "and keeps the objects: \(line)")
        for _ in 0..<options.commitsAfterPin { try writer.commit() }
        say("Committed \(options.commitsAfterPin) more versions (new dogs, birthdays, departures) while it caches v\(pin.version).")
        // The tour reads the file with no live instance of ours open: the
        // writer's own read pin would show in `firn pins` beside the child's.
        _ = consume writer

        let steps: [[String]] = [
            ["info", "demo.firn"],
            ["dump", "demo.firn", "--objects", "--type", "Dog", "--limit", "3"],
            ["pins", "demo.firn"],
            ["growth", "demo.firn", "--width", "50"],
            ["verify", "demo.firn"],
            ["compact", "demo.firn", "-o", "demo-compact.firn"],
            ["export", "demo.firn", "-o", "demo.firn.lz4"],
            ["import", "demo.firn.lz4", "-o", "demo-restored.firn"],
        ]
        var failed: [String] = []
        for step in steps { runStep(step, options, directory, &failed, say) }
        stop(child)
        say("\nStopped the caching process (pid \(child.processIdentifier)); its frozen pin went with its last frozen object.")
        var last = try DemoWriter(path: database)
        try last.commit()
        _ = consume last
        say("One more commit returns the pages only v\(pin.version) saw to the free list:")
        for step in [["pins", "demo.firn"], ["info", "demo.firn"]] { runStep(step, options, directory, &failed, say) }
        say("\nThe files stay in \(directory).")
        say("Try: firn pins \(database) --max-lag 100; firn dump \(database) --objects --type Person --json | head -2")
        return Report(directory: directory, database: database, commits: total + 1,
                      pinnedVersion: pin.version, cachePID: child.processIdentifier, frozenObjects: pin.frozenObjects,
                      failedSteps: failed)
    }

    private static func runStep(_ step: [String], _ options: Options, _ directory: String, _ failed: inout [String],
                                _ say: (String) -> Void) {
        say("\n$ firn \(step.joined(separator: " "))")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: options.executable)
        process.arguments = step + ["--no-progress"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        if !options.showSteps { process.standardOutput = FileHandle.nullDevice }
        do {
            try process.run()
            process.waitUntilExit()
            if process.terminationStatus != 0 { failed.append("\(step.joined(separator: " ")) exited \(process.terminationStatus)") }
        } catch {
            failed.append("\(step.joined(separator: " ")): \(error)")
        }
    }

    private static func prepareDirectory(_ requested: String?) throws -> String {
        if let requested {
            var isDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: requested, isDirectory: &isDirectory) {
                do {
                    try FileManager.default.createDirectory(atPath: requested, withIntermediateDirectories: true)
                } catch {
                    throw ToolError.cannotCreate(path: requested, detail: "cannot create the directory")
                }
            } else if !isDirectory.boolValue {
                throw ToolError.cannotCreate(path: requested, detail: "exists and is not a directory")
            }
            return requested.hasPrefix("/") ? requested : FileManager.default.currentDirectoryPath + "/" + requested
        }
        var template = Array((temporaryDirectory() + "/firn-demo-XXXXXX").utf8CString)
        let made: String? = template.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
            return String(cString: base)
        }
        guard let made else {
            throw ToolError.cannotCreate(path: temporaryDirectory(), detail: "cannot make a temporary directory")
        }
        return made
    }

    /// SIGTERM, then SIGKILL if it has not exited within 5 s.
    private static func stop(_ child: Process) {
        guard child.isRunning else { return }
        child.terminate()
        let deadline = monotonicDeadline(afterSeconds: 5)
        while child.isRunning && monotonicNanoseconds() < deadline { usleep(10_000) }
        if child.isRunning { kill(child.processIdentifier, SIGKILL) }
        child.waitUntilExit()
    }

    private static func readLine(_ handle: FileHandle) -> String {
        var bytes: [UInt8] = []
        while let chunk = try? handle.read(upToCount: 1), let byte = chunk.first {
            if byte == 10 { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// $TMPDIR, or /tmp.
private func temporaryDirectory() -> String {
    if let dir = getenv("TMPDIR").map({ String(cString: $0) }), !dir.isEmpty { return dir }
    return "/tmp"
}

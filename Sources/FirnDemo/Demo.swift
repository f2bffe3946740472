import Firn
import FirnCore
import FirnTools
import Foundation

/// `firn demo`: builds `DIR/demo.firn` with the Firn SDK (the documents'
/// Person and Dog, a few hundred commits on the commit log), starts a
/// second `firn` process that caches frozen results of an early version —
/// a commit in the log (`firn demo-app cache`) — commits and checkpoints
/// on while it holds them, and runs the other commands on the file as a
/// user would — so the tour shows the documents' warning (caching frozen
/// objects grows the file) and who causes it. Every claim it prints is
/// checked against the file (`failedSteps` says which did not hold): the
/// pinned version dumps as exactly the objects the child holds, and once
/// the child lets go the next checkpoint frees what its pin held. The
/// child is stopped before it returns; the files stay in DIR.
package enum Demo {
    package struct Options: Sendable {
        /// nil: a new temporary directory.
        package var directory: String?
        /// The `firn` binary to run for the child and the tour.
        package var executable: String
        package var commitsBeforePin = 120
        package var commitsAfterPin = 240
        /// Whether the tour's commands print to stdout (off for `--json`,
        /// whose stdout is the report alone).
        package var showSteps = true
        package init(directory: String?, executable: String) {
            self.directory = directory
            self.executable = executable
        }
    }

    package struct Report: Codable, Sendable {
        package var directory: String
        package var database: String
        package var commits: Int
        /// The version the child's frozen objects read.
        package var pinnedVersion: UInt64
        package var cachePID: Int32
        /// The frozen objects the child cached, as its pin counted them.
        package var frozenObjects: UInt64
        /// The version's checkpoint when the pinned version is a commit in
        /// the log (nil: a checkpoint itself).
        package var pinnedCheckpoint: UInt64?
        /// What the child's pin held once checkpoints had run, and what the
        /// checkpoint after its release returned (free bytes before and after).
        package var heldBytes: UInt64
        package var freeBytesBefore: UInt64
        package var freeBytesAfter: UInt64
        package var failedSteps: [String]
    }

    package static func run(_ options: Options, say: (String) -> Void) throws -> Report {
        let directory = try prepareDirectory(options.directory)
        let database = directory + "/demo.firn"
        let cachedList = directory + "/demo-cached-dogs.jsonl"
        for name in ["demo.firn", "demo.firn.lock", "demo-compact.firn", "demo.firn.lz4", "demo-restored.firn", "demo-restored.firn.lock", "demo-compact.firn.lock", "demo-cached-dogs.jsonl"] {
            unlink(directory + "/" + name)
        }
        let total = options.commitsBeforePin + options.commitsAfterPin
        say("Building \(database) with the Firn SDK: Person and Dog objects, \(total) commits…")
        var writer = try DemoWriter(path: database)
        for _ in 0..<options.commitsBeforePin { try writer.commit() }

        let child = Process()
        child.executableURL = URL(fileURLWithPath: options.executable)
        child.arguments = ["demo-app", "cache", database, "--objects-to", cachedList, "--no-progress"]
        let pipe = Pipe()
        child.standardOutput = pipe
        try child.run()
        defer { stop(child) }
        let line = readLine(pipe.fileHandleForReading)
        let pin = writer.database.store.pins().first { $0.pid == child.processIdentifier && $0.kind == .frozen }
        guard line.hasPrefix("cached"), let pin else {
            throw FirnError.misuse("demo: the caching child did not start (\(line.isEmpty ? "no output" : line))")
        }
        let pinnedCheckpoint = try checkpointOf(pin.version, database: database)
        let what = pinnedCheckpoint.map { "a commit in the commit log since checkpoint v\($0)" } ?? "a checkpoint"
        say("Started pid \(child.processIdentifier), a dashboard that froze `objects(Dog.self).sorted(byKeyPath: \"name\")` "
            + "and keeps the objects: \(line); v\(pin.version) is \(what).")
        let rounds = 3
        for round in 0..<rounds {
            for _ in 0..<(options.commitsAfterPin / rounds) { try writer.commit() }
            // Checkpoints move the log's changes into the trees: the pinned
            // version's checkpoint leaves the commit slots, and its pages
            // that the checkpoints replace stay for the pin.
            if round < rounds - 1 { _ = try writer.database.engineStore.checkpoint() }
        }
        say("Committed \(options.commitsAfterPin) more versions (new dogs, birthdays, departures) and checkpointed while it caches v\(pin.version).")
        // The tour reads the file with no live instance of ours open: the
        // writer's own read pin would show in `firn pins` beside the child's.
        _ = consume writer

        var failed: [String] = []
        for step in [["checkpoint", "demo.firn"], ["versions", "demo.firn"], ["pins", "demo.firn"], ["info", "demo.firn"]] {
            runStep(step, options, directory, &failed, say)
        }
        // Claim: any process reads the pinned version as the child does.
        runStep(["dump", "demo.firn", "--version", "\(pin.version)", "--objects", "--type", "Dog", "--limit", "3"],
                options, directory, &failed, say)
        let same = try sameDogs(database, version: pin.version, cachedList: cachedList)
        if let same {
            failed.append("dump --version \(pin.version) --objects differs from what pid \(child.processIdentifier) holds: \(same)")
            say("✗ dump --version \(pin.version) does not read what the dashboard holds: \(same)")
        } else {
            say("✓ dump --version \(pin.version) --objects reads exactly the \(pin.frozenObjects) dogs pid \(child.processIdentifier) holds (same ids, names and ages).")
        }
        let steps: [[String]] = [
            ["growth", "demo.firn", "--width", "50"],
            ["verify", "demo.firn"],
            ["compact", "demo.firn", "-o", "demo-compact.firn"],
            ["export", "demo.firn", "-o", "demo.firn.lz4"],
            ["import", "demo.firn.lz4", "-o", "demo-restored.firn"],
        ]
        for step in steps { runStep(step, options, directory, &failed, say) }

        // Claim: once the child lets go, the next checkpoint frees what its pin held.
        let held = try Pins.run(Pins.Options(path: database)).pins.first { $0.pid == child.processIdentifier }?.retainedBytes ?? 0
        let before = try Info.run(Info.Options(path: database))
        stop(child)
        say("\nStopped the caching process (pid \(child.processIdentifier)); its frozen pin went with its last frozen object. "
            + "It held \(Units.bytes(held)) alone; free space was \(Units.bytes(before.freeBytes)).")
        var last = try DemoWriter(path: database)
        try last.commit()
        _ = try last.database.engineStore.checkpoint()
        _ = consume last
        let after = try Info.run(Info.Options(path: database))
        if after.pinnedBytes == 0, after.freeBytes > before.freeBytes {
            say("✓ One commit and a checkpoint later, no pin holds space and free space grew to \(Units.bytes(after.freeBytes)) "
                + "(the checkpoint took some of what it freed for its own pages):")
        } else {
            failed.append("after the release and a checkpoint: pinned \(after.pinnedBytes) B, free \(before.freeBytes) → \(after.freeBytes) B")
            say("✗ After the release and a checkpoint, pinned \(Units.bytes(after.pinnedBytes)), free \(Units.bytes(before.freeBytes)) → \(Units.bytes(after.freeBytes)):")
        }
        for step in [["pins", "demo.firn"], ["info", "demo.firn"]] { runStep(step, options, directory, &failed, say) }
        say("\nThe files stay in \(directory).")
        say("Try: firn pins \(database) --max-lag 100; firn dump \(database) --objects --type Person --json | head -2")
        return Report(directory: directory, database: database, commits: total + 1,
                      pinnedVersion: pin.version, cachePID: child.processIdentifier, frozenObjects: pin.frozenObjects,
                      pinnedCheckpoint: pinnedCheckpoint, heldBytes: held, freeBytesBefore: before.freeBytes,
                      freeBytesAfter: after.freeBytes, failedSteps: failed)
    }

    /// The checkpoint whose log holds `version`, or nil when it is a checkpoint.
    private static func checkpointOf(_ version: UInt64, database: String) throws -> UInt64? {
        let access = try ReadAccess.open(database, version: version, label: "firn demo")
        defer { access.close() }
        return access.snapshot.version == version ? access.snapshot.logCheckpointVersion : nil
    }

    /// Nil when the Dog objects `dump --version` decodes from the file are
    /// the ones the child listed (same ids, names and ages); else what differs.
    private static func sameDogs(_ database: String, version: UInt64, cachedList: String) throws -> String? {
        guard let data = FileManager.default.contents(atPath: cachedList) else { return "the child wrote no list" }
        let decoder = JSONDecoder()
        var cached: [FrozenCache.CachedDog] = []
        for line in data.split(separator: 10) {
            cached.append(try decoder.decode(FrozenCache.CachedDog.self, from: Data(line)))
        }
        var dumped: [FrozenCache.CachedDog] = []
        var options = ObjectDump.Options(path: database)
        options.version = version
        options.type = "Dog"
        _ = try ObjectDump.run(options, type: { _ in }) { object in
            var id: Int64 = -1, age: Int64 = -1, name = ""
            for field in object.fields {
                switch (field.name, field.value) {
                case let ("id", .int(v)): id = v
                case let ("age", .int(v)): age = v
                case let ("name", .string(v)): name = v
                default: break
                }
            }
            dumped.append(FrozenCache.CachedDog(id: Int(id), name: name, age: Int(age)))
        }
        let byID = { (dogs: [FrozenCache.CachedDog]) in dogs.sorted { $0.id < $1.id } }
        if byID(cached) == byID(dumped) { return nil }
        return "\(cached.count) cached, \(dumped.count) dumped, \(Set(cached).symmetricDifference(dumped).count) differ"
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

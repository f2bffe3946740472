import Firn
import FirnCore
import FirnTools
import Foundation

/// `firn demo`: builds `DIR/demo.firn` with the Firn SDK (the documents'
/// Person and Dog, a few hundred commits on the commit log), starts a
/// second `firn` process that caches frozen results of an early version —
/// a commit in the log (`firn demo-app cache`) — commits and checkpoints
/// on while it holds them, and runs the toolkit's operations on the file as
/// a user runs the commands — so the tour shows the documents' warning
/// (caching frozen objects grows the file) and who causes it. It hands
/// what happens to the caller as it goes (`Event`s, and each command's
/// report as a `Step`, which the CLI renders as the command does). Every
/// claim is checked against the file (`failedSteps` says which did not
/// hold): each step succeeds, the pinned version dumps as exactly the
/// objects the child holds, and once the child lets go the next checkpoint
/// frees what its pin held. The child is stopped before it returns; the
/// files stay in DIR.
package enum Demo {
    package struct Options: Sendable {
        /// nil: a new temporary directory.
        package var directory: String?
        /// The `firn` binary to run for the second process.
        package var executable: String
        package var commitsBeforePin = 120
        package var commitsAfterPin = 240
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

    /// What the tour tells between its steps, in order.
    package enum Event: Sendable {
        /// `database` is being built with the SDK, `commits` in all.
        case building(database: String, commits: Int)
        /// The second process (`pid`) froze its objects and printed `line`;
        /// its pin holds `version`, a commit in the log of `checkpoint` (nil:
        /// a checkpoint itself).
        case cacheStarted(pid: Int32, line: String, version: UInt64, checkpoint: UInt64?)
        /// `commits` more were made, with checkpoints, while it holds `version`.
        case committed(commits: Int, version: UInt64)
        /// Claim: the step before read `version` as exactly the `objects`
        /// dogs `pid` holds; else `difference` says what differs.
        case objectsCompared(version: UInt64, pid: Int32, objects: UInt64, difference: String?)
        /// The second process was stopped; its pin alone held `heldBytes`,
        /// and `freeBytes` were free.
        case cacheStopped(pid: Int32, heldBytes: UInt64, freeBytes: UInt64)
        /// Claim (`held`): one commit and a checkpoint after the release, no
        /// pin holds space and free space grew.
        case spaceFreed(held: Bool, pinnedBytes: UInt64, freeBytesBefore: UInt64, freeBytesAfter: UInt64)
        /// The tour is over; its files stay in `directory`.
        case finished(directory: String, database: String)
    }

    /// One command of the tour, run through FirnTools as `firn` runs it.
    package struct Step: Sendable {
        /// The command line as the tour shows it (after `firn`), as run in
        /// the tour's directory.
        package var arguments: [String]
        /// The file the command line names first (the database; the
        /// snapshot for `import`).
        package var file: String
        package var outcome: Result<Report, any Error>

        /// The command's report, with what its text names besides `file`.
        package enum Report: Sendable {
            case checkpoint(Checkpoint.Report)
            case versions(Versions.Report)
            case pins(Pins.Report)
            case info(Info.Report)
            /// `dump --objects`, at most `limit` objects per type.
            case objects(ObjectDump.Listing, limit: Int?)
            /// `growth`, its chart `width` columns wide.
            case growth(Growth.Report, width: Int)
            case verify(Verify.Report)
            case compact(Compact.Report, output: String)
            case export(Export.Report, output: String)
            case importing(Import.Report, output: String)
        }
    }

    /// Runs the tour: `event` for what it tells, `step` for each command,
    /// which returns the exit status that command would have (0: it and its
    /// claims held; `firn demo` renders the step as the command does).
    package static func run(_ options: Options, event: (Event) -> Void, step: (Step) -> Int32) throws -> Report {
        let directory = try prepareDirectory(options.directory)
        let database = directory + "/demo.firn"
        let cachedList = directory + "/demo-cached-dogs.jsonl"
        for name in ["demo.firn", "demo.firn.lock", "demo-compact.firn", "demo.firn.lz4", "demo-restored.firn", "demo-restored.firn.lock", "demo-compact.firn.lock", "demo-cached-dogs.jsonl"] {
            unlink(directory + "/" + name)
        }
        let total = options.commitsBeforePin + options.commitsAfterPin
        event(.building(database: database, commits: total))
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
        event(.cacheStarted(pid: child.processIdentifier, line: line, version: pin.version, checkpoint: pinnedCheckpoint))
        let rounds = 3
        for round in 0..<rounds {
            for _ in 0..<(options.commitsAfterPin / rounds) { try writer.commit() }
            // Checkpoints move the log's changes into the trees: the pinned
            // version's checkpoint leaves the commit slots, and its pages
            // that the checkpoints replace stay for the pin.
            if round < rounds - 1 { _ = try writer.database.engineStore.checkpoint() }
        }
        event(.committed(commits: options.commitsAfterPin, version: pin.version))
        // The tour reads the file with no live instance of ours open.
        _ = consume writer

        var failed: [String] = []
        // The tour's commands, run through FirnTools with the options `firn`
        // gives them by default; the command line shows the files by their
        // names in the directory.
        func tour(_ arguments: [String], _ report: () throws -> Step.Report) {
            let status = step(Step(arguments: arguments, file: arguments[1], outcome: Result { try report() }))
            if status != 0 { failed.append("\(arguments.joined(separator: " ")) exited \(status)") }
        }
        let name = "demo.firn"
        func path(_ name: String) -> String { directory + "/" + name }
        var checkpoint = Checkpoint.Options(path: database)
        checkpoint.lockTimeout = 30  // firn's wait for the writer lock
        tour(["checkpoint", name]) { .checkpoint(try Checkpoint.run(checkpoint)) }
        tour(["versions", name]) { .versions(try Versions.run(Versions.Options(path: database))) }
        tour(["pins", name]) { .pins(try Pins.run(Pins.Options(path: database))) }
        tour(["info", name]) { .info(try Info.run(Info.Options(path: database))) }
        // Claim: any process reads the pinned version as the child does.
        var objects = ObjectDump.Options(path: database)
        objects.version = pin.version
        objects.type = "Dog"
        objects.limit = 3
        tour(["dump", name, "--version", "\(pin.version)", "--objects", "--type", "Dog", "--limit", "3"]) {
            .objects(try ObjectDump.list(objects), limit: objects.limit)
        }
        let difference = try sameDogs(database, version: pin.version, cachedList: cachedList)
        if let difference {
            failed.append("dump --version \(pin.version) --objects differs from what pid \(child.processIdentifier) holds: \(difference)")
        }
        event(.objectsCompared(version: pin.version, pid: child.processIdentifier, objects: pin.frozenObjects, difference: difference))
        tour(["growth", name, "--width", "50"]) { .growth(try Growth.run(Growth.Options(path: database)), width: 50) }
        tour(["verify", name]) { .verify(try Verify.run(Verify.Options(path: database))) }
        var compact = Compact.Options(path: database)
        compact.output = path("demo-compact.firn")
        tour(["compact", name, "-o", "demo-compact.firn"]) { .compact(try Compact.run(compact), output: "demo-compact.firn") }
        tour(["export", name, "-o", "demo.firn.lz4"]) {
            .export(try Export.run(Export.Options(path: database, output: path("demo.firn.lz4"))), output: "demo.firn.lz4")
        }
        tour(["import", "demo.firn.lz4", "-o", "demo-restored.firn"]) {
            .importing(try Import.run(Import.Options(input: path("demo.firn.lz4"), output: path("demo-restored.firn"))),
                       output: "demo-restored.firn")
        }

        // Claim: once the child lets go, the next checkpoint frees what its pin held.
        let held = try Pins.run(Pins.Options(path: database)).pins.first { $0.pid == child.processIdentifier }?.retainedBytes ?? 0
        let before = try Info.run(Info.Options(path: database))
        stop(child)
        event(.cacheStopped(pid: child.processIdentifier, heldBytes: held, freeBytes: before.freeBytes))
        var last = try DemoWriter(path: database)
        try last.commit()
        _ = try last.database.engineStore.checkpoint()
        _ = consume last
        let after = try Info.run(Info.Options(path: database))
        let freed = after.pinnedBytes == 0 && after.freeBytes > before.freeBytes
        if !freed {
            failed.append("after the release and a checkpoint: pinned \(after.pinnedBytes) B, free \(before.freeBytes) → \(after.freeBytes) B")
        }
        event(.spaceFreed(held: freed, pinnedBytes: after.pinnedBytes, freeBytesBefore: before.freeBytes, freeBytesAfter: after.freeBytes))
        tour(["pins", name]) { .pins(try Pins.run(Pins.Options(path: database))) }
        tour(["info", name]) { .info(try Info.run(Info.Options(path: database))) }
        event(.finished(directory: directory, database: database))
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
                case let ("id", .field(.int(v))): id = v
                case let ("age", .field(.int(v))): age = v
                case let ("name", .field(.string(v))): name = v
                default: break
                }
            }
            dumped.append(FrozenCache.CachedDog(id: Int(id), name: name, age: Int(age)))
        }
        let byID = { (dogs: [FrozenCache.CachedDog]) in dogs.sorted { $0.id < $1.id } }
        if byID(cached) == byID(dumped) { return nil }
        return "\(cached.count) cached, \(dumped.count) dumped, \(Set(cached).symmetricDifference(dumped).count) differ"
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

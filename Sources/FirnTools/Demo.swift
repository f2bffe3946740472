import Foundation

/// `firn demo`: builds `DIR/demo.firn` (several named trees, a few hundred
/// commits), starts a second `firn` process that pins an early version as a
/// frozen snapshot holding decoded records, then runs the other commands on
/// it as a user would, printing a short tour. The child is stopped before
/// it returns; the files stay in DIR.
public enum Demo {
    public struct Options: Sendable {
        /// nil: a new temporary directory.
        public var directory: String?
        /// The `firn` binary to run for the child and the tour.
        public var executable: String
        public var commitsBeforePin = 120
        public var commitsAfterPin = 240
        public init(directory: String?, executable: String) {
            self.directory = directory
            self.executable = executable
        }
    }

    public struct Report: Codable, Sendable {
        public var directory: String
        public var database: String
        public var commits: Int
        public var pinnedVersion: UInt64
        public var failedSteps: [String]
    }

    static let trees = ["users", "orders", "events", "blobs"]

    public static func run(_ options: Options, say: (String) -> Void) throws -> Report {
        let directory = try prepareDirectory(options.directory)
        let database = directory + "/demo.firn"
        for name in ["demo.firn", "demo.firn.lock", "demo-compact.firn", "demo.firn.lz4", "demo-restored.firn", "demo-restored.firn.lock", "demo-compact.firn.lock"] {
            unlink(directory + "/" + name)
        }
        say("Building \(database): \(trees.count) trees, \(options.commitsBeforePin + options.commitsAfterPin) commits…")
        let store = try Store.open(database)
        var rng = SystemRandomNumberGenerator()
        for commit in 0..<options.commitsBeforePin { try write(commit, to: store, rng: &rng) }

        let child = Process()
        child.executableURL = URL(fileURLWithPath: options.executable)
        child.arguments = ["hold", database, "--kind", "frozen", "--label", "dashboard: frozen results",
                           "--decode-records", "1532", "--seconds", "3600", "--no-progress"]
        let pipe = Pipe()
        child.standardOutput = pipe
        try child.run()
        defer { stop(child) }
        let line = readLine(pipe.fileHandleForReading)
        let pinned = try store.currentVersion
        guard line.contains("pinned") else {
            throw ToolError.usage("demo: the pinning child did not start (\(line))")
        }
        say("Started pid \(child.processIdentifier): `firn hold … --kind frozen` pinning version \(pinned) (\(line.trimmingCharacters(in: .whitespacesAndNewlines)))")
        for commit in options.commitsBeforePin..<(options.commitsBeforePin + options.commitsAfterPin) {
            try write(commit, to: store, rng: &rng)
        }
        store.close()
        say("Committed \(options.commitsAfterPin) more versions while the pin holds v\(pinned).")

        let steps: [[String]] = [
            ["info", "demo.firn"],
            ["pins", "demo.firn"],
            ["growth", "demo.firn"],
            ["verify", "demo.firn"],
            ["compact", "demo.firn", "-o", "demo-compact.firn"],
            ["export", "demo.firn", "-o", "demo.firn.lz4"],
            ["import", "demo.firn.lz4", "-o", "demo-restored.firn"],
            ["info", "demo-restored.firn"],
        ]
        var failed: [String] = []
        for step in steps {
            say("\n$ firn \(step.joined(separator: " "))")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: options.executable)
            process.arguments = step + ["--no-progress"]
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            try process.run()
            process.waitUntilExit()
            if process.terminationStatus != 0 { failed.append("\(step.joined(separator: " ")) exited \(process.terminationStatus)") }
        }
        stop(child)
        say("\nStopped the pinning process (pid \(child.processIdentifier)). The files stay in \(directory).")
        say("Try: firn pins \(database) --max-lag 100; firn dump \(database) --tree users --entries | head")
        return Report(directory: directory, database: database, commits: options.commitsBeforePin + options.commitsAfterPin,
                      pinnedVersion: pinned, failedSteps: failed)
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

    /// One commit of plausible application data: new users and orders, an
    /// event log, the odd large blob (overflow pages), and churn (updates
    /// and deletes) so pinned versions retain pages.
    private static func write(_ commit: Int, to store: Store, rng: inout SystemRandomNumberGenerator) throws {
        try store.write { txn in
            guard let users = try txn.tree("users"), let orders = try txn.tree("orders"),
                  let events = try txn.tree("events"), let blobs = try txn.tree("blobs") else { return }
            for i in 0..<8 {
                let id = commit * 8 + i
                let key = Array(String(format: "user:%06d", id).utf8)
                _ = try users.put(key, Array("{\"name\":\"user \(id)\",\"plan\":\"\(["free", "pro", "team"][id % 3])\",\"visits\":\(commit)}".utf8))
            }
            // Churn: rewrite some older users.
            for _ in 0..<12 where commit > 0 {
                let id = Int.random(in: 0..<(commit * 8), using: &rng)
                let key = Array(String(format: "user:%06d", id).utf8)
                _ = try users.put(key, Array("{\"name\":\"user \(id)\",\"plan\":\"pro\",\"visits\":\(commit),\"note\":\"updated in commit \(commit)\"}".utf8))
            }
            for i in 0..<5 {
                let key = Array(String(format: "order:%07d", commit * 5 + i).utf8)
                _ = try orders.put(key, Array("{\"user\":\(Int.random(in: 0..<(commit * 8 + 8), using: &rng)),\"total\":\(Int.random(in: 100...99999, using: &rng))}".utf8))
            }
            if commit > 10 {
                _ = try orders.delete(Array(String(format: "order:%07d", (commit - 10) * 5).utf8))
            }
            var stamp = [UInt8](repeating: 0, count: 8)
            for b in 0..<8 { stamp[b] = UInt8(truncatingIfNeeded: UInt64(commit) >> (56 - 8 * b)) }
            _ = try events.put(stamp, Array("commit \(commit): \(8) users, 5 orders".utf8))
            if commit % 10 == 0 {
                let blob = (0..<(6000 + commit * 10)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ commit) }
                _ = try blobs.put(Array(String(format: "blob:%04d", commit / 10).utf8), blob)
            }
        }
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

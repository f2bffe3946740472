import FirnDemo

/// `firn demo`'s narration between the tour's steps (each step is rendered
/// by its command's renderer), a claim checked as ✓ or ✗.
enum DemoText {
    static func lines(_ event: Demo.Event) -> [String] {
        switch event {
        case let .building(database, commits):
            return ["Building \(database) with the Firn SDK: Person and Dog objects, \(commits) commits…"]
        case let .cacheStarted(pid, line, version, checkpoint):
            let what = checkpoint.map { "a commit in the commit log since checkpoint v\($0)" } ?? "a checkpoint"
            return ["Started pid \(pid), a dashboard that froze `objects(Dog.self).sorted(byKeyPath: \"name\")` "
                    + "and keeps the objects: \(line); v\(version) is \(what)."]
        case let .committed(commits, version):
            return ["Committed \(commits) more versions (new dogs, birthdays, departures) and checkpointed while it caches v\(version)."]
        case let .objectsCompared(version, pid, objects, difference):
            if let difference { return ["✗ dump --version \(version) does not read what the dashboard holds: \(difference)"] }
            return ["✓ dump --version \(version) --objects reads exactly the \(objects) dogs pid \(pid) holds (same ids, names and ages)."]
        case let .cacheStopped(pid, held, free):
            return ["", "Stopped the caching process (pid \(pid)); its frozen pin went with its last frozen object. "
                    + "It held \(Human.bytes(held)) alone; free space was \(Human.bytes(free))."]
        case let .spaceFreed(held, pinned, before, after):
            if held {
                return ["✓ One commit and a checkpoint later, no pin holds space and free space grew to \(Human.bytes(after)) "
                        + "(the checkpoint took some of what it freed for its own pages):"]
            }
            return ["✗ After the release and a checkpoint, pinned \(Human.bytes(pinned)), free \(Human.bytes(before)) → \(Human.bytes(after)):"]
        case let .finished(directory, database):
            return ["", "The files stay in \(directory).",
                    "Try: firn pins \(database) --max-lag 100; firn dump \(database) --objects --type Person --json | head -2"]
        }
    }

    /// The line before a step's output.
    static func command(_ step: Demo.Step) -> [String] {
        ["", "$ firn " + step.arguments.joined(separator: " ")]
    }
}

// The SDK side of the replacement race (issue 7): a process that opens a
// database with `Store.open` and commits while another process replaces the
// file at its path (`firn compact` in place, `firn import --force`).
import FirnCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Replacement-race commands by name.
let replacementCommands: [String: @Sendable ([String]) throws -> Int32] = [
    // commit-check DBPATH PREFIX SECONDS PAUSE_MS: for SECONDS, over and over
    // (pausing a random 0…PAUSE_MS milliseconds between attempts, as an
    // application does between transactions; with no pause at all, a few of
    // these keep the database open all the time and nothing can replace it): opens
    // DBPATH with `Store.open` (it must exist), commits one entry
    // "PREFIX-N" → "value PREFIX-N" into the tree "sdk", then — with that
    // store still open, so no in-place replacement may be under way — opens
    // the path a second time, read-only, and reads the key back; then closes
    // both. One line on stdout per attempt:
    //   ack KEY VERSION            committed, and the file at the path holds it
    //   missing KEY VERSION WHY    committed (commit returned VERSION), but the
    //                              file at the path does not hold it: the commit
    //                              went into a file that is no longer there
    //   busy WHY                   open or writer lock refused (FirnError.busy):
    //                              nothing committed, retry
    //   error WHY                  any other error: nothing acknowledged
    // and last "done ATTEMPTS".
    //
    // With `--log-pages N` the store commits through the commit log
    // (`StoreOptions.commitLogPages` = N; FORMAT.md 8.2), and each attempt
    // is a short session of 1–4 commits "PREFIX-N-I", each durable or
    // deferred at random (about one in three durable), one in eight with a
    // value of 3000 bytes (more than an eighth of a small region: a
    // checkpoint); a small region fills every few attempts, so frames,
    // seals and checkpoints all happen while the file is being replaced.
    // An open group is closed by `sync()` three times in four; otherwise
    // the session closes with it unsynced. A key is acknowledged once a
    // durable commit or a `sync()` at or after its version returned; all of
    // them are read back as above, with the store still open. Lines:
    //   ack KEY VERSION frame|checkpoint   acknowledged and read back (the
    //                                      kind of the commit that wrote it)
    //   unsynced KEY VERSION               committed deferred, the session
    //                                      closed before its group was made
    //                                      durable: not acknowledged
    // and `missing`, `busy`, `error` as above (`busy`/`error` end the
    // attempt: keys acknowledged before it are still read back and reported).
    // Exits 0 unless it cannot run at all.
    "commit-check": { arguments in
        let usage = "commit-check DBPATH PREFIX SECONDS PAUSE_MS [--log-pages N]"
        guard case let (positional, logPages)? = takingLogPages(arguments, withOption: 6), positional.count == 4, let seconds = Double(positional[2]), seconds.isFinite, seconds >= 0,
              let pause = UInt32(positional[3]) else {
            return usageError(usage)
        }
        let path = positional[0], prefix = positional[1]
        let deadline = monotonicSeconds() + seconds
        var attempt = 0
        while monotonicSeconds() < deadline {
            attempt += 1
            let key = "\(prefix)-\(attempt)"
            if logPages > 0 {
                for line in logSessionAndReadBack(path: path, keyPrefix: key, logPages: logPages) { printLine(line) }
            } else {
                printLine(commitAndReadBack(path: path, key: key))
            }
            if pause > 0 { sleepSeconds(Double(UInt32.random(in: 0...pause)) / 1000) }
        }
        printLine("done \(attempt)")
        return 0
    },

    // open-paused-commit DBPATH KEY GOFILE: a `Store` opened just before the
    // file is replaced. `Store.open` opens the data file, and right there —
    // through `StoreOptions.wrapIO`, which sees the data file's I/O layer as
    // soon as it is opened and before anything else happens — prints
    // "opened" and waits (at most 60 s) until GOFILE exists, while the test
    // replaces the file. Then the open goes on, the process commits KEY and
    // reads it back as `commit-check` does, and prints that one line. With
    // `--log-pages N`, the session of `commit-check --log-pages` instead
    // (keys "KEY-I"), and its lines.
    "open-paused-commit": { arguments in
        let usage = "open-paused-commit DBPATH KEY GOFILE [--log-pages N]"
        guard case let (positional, logPages)? = takingLogPages(arguments, withOption: 5), positional.count == 3 else {
            return usageError(usage)
        }
        let goFile = positional[2]
        let paused = Atomic<Bool>(false)
        let pause: @Sendable (any FileIO) -> any FileIO = { io in
            // Only the first open pauses (an engine may reopen the file).
            if !paused.exchange(true, ordering: .sequentiallyConsistent) {
                printLine("opened")
                let deadline = monotonicSeconds() + 60
                while access(goFile, F_OK) != 0 && monotonicSeconds() < deadline { usleep(1_000) }
            }
            return io
        }
        if logPages > 0 {
            for line in logSessionAndReadBack(path: positional[0], keyPrefix: positional[1], logPages: logPages, wrapIO: pause) {
                printLine(line)
            }
        } else {
            printLine(commitAndReadBack(path: positional[0], key: positional[1], wrapIO: pause))
        }
        return 0
    },
]

/// One attempt of `commit-check`: its output line.
private func commitAndReadBack(path: String, key: String,
                               wrapIO: (@Sendable (any FileIO) -> any FileIO)? = nil) -> String {
    var options = StoreOptions()
    options.create = false
    options.durability = .full
    options.lockTimeout = .seconds(30)
    options.wrapIO = wrapIO
    // Page commits: with `--log-pages`, `logSessionAndReadBack` commits to the log.
    options.commitLogPages = 0
    let store: Store
    do { store = try Store.open(path, options: options) } catch { return failureLine(error) }
    defer { store.close() }
    let version: UInt64
    do {
        let txn = try store.beginWriteBlocking()
        do {
            guard let tree = try txn.tree("sdk") else {
                txn.abort()
                return "error no tree sdk"
            }
            try tree.put(Array(key.utf8), Array("value \(key)".utf8))
            version = try txn.commit()
        } catch {
            txn.abort()
            throw error
        }
    } catch {
        return failureLine(error)
    }
    return readBack(path, [Written(key: key, value: Array("value \(key)".utf8), version: version, kind: nil)])[0]
}

/// One attempt of `commit-check --log-pages`: a session of a few log
/// commits, durable and deferred, then every acknowledged key read back
/// through the path while the session is still open. Its output lines.
private func logSessionAndReadBack(path: String, keyPrefix: String, logPages: UInt32,
                                   wrapIO: (@Sendable (any FileIO) -> any FileIO)? = nil) -> [String] {
    var options = StoreOptions()
    options.create = false
    options.durability = .full
    options.lockTimeout = .seconds(30)
    options.commitLogPages = logPages
    options.wrapIO = wrapIO
    let store: Store
    do { store = try Store.open(path, options: options) } catch { return [failureLine(error)] }
    defer { store.close() }
    var committed: [Written] = []
    /// The newest version a durable commit or `sync()` of this session made durable.
    var durable: UInt64 = 0
    var lines: [String] = []
    do {
        for index in 0..<Int.random(in: 1...4) {
            let key = "\(keyPrefix)-\(index)"
            var value = Array("value \(key)".utf8)
            if Int.random(in: 0..<8) == 0 { value += [UInt8](repeating: 0x2E, count: 3000) }
            let deferred = Int.random(in: 0..<3) != 0
            let txn = try store.beginWriteBlocking()
            let version: UInt64
            do {
                guard let tree = try txn.tree("sdk") else {
                    txn.abort()
                    lines.append("error no tree sdk")
                    break
                }
                try tree.put(Array(key.utf8), value)
                version = try txn.commit(durability: deferred ? .deferred : .durable)
            } catch {
                txn.abort()
                throw error
            }
            // A checkpoint writes a commit record of its version; a frame does not.
            let checkpoint = try store.readSlots().record(version: version) != nil
            committed.append(Written(key: key, value: value, version: version, kind: checkpoint ? "checkpoint" : "frame"))
            if !deferred || checkpoint { durable = version }
        }
        if let last = committed.last, durable < last.version, Int.random(in: 0..<4) != 0 {
            durable = try store.sync()
        }
    } catch {
        lines.append(failureLine(error))
    }
    let acknowledged = committed.filter { $0.version <= durable }
    for entry in committed where entry.version > durable { lines.append("unsynced \(entry.key) \(entry.version)") }
    guard !acknowledged.isEmpty else { return lines }
    return lines + readBack(path, acknowledged)
}

/// A commit to read back, and the kind `ack` names after its version
/// (`frame` or `checkpoint`; nil: none).
private struct Written {
    let key: String
    let value: [UInt8]
    let version: UInt64
    let kind: String?
}

/// Reads `written` back through the path, with a read-only store, while
/// this process's session is still open: nobody may have replaced the file
/// since the commits, and it was the file at the path when they were made.
/// A line each: `ack`, or `missing` and why; when reading fails, `missing`
/// for every commit.
private func readBack(_ path: String, _ written: [Written]) -> [String] {
    var readOptions = StoreOptions()
    readOptions.create = false
    readOptions.readOnly = true
    var lines: [String] = []
    do {
        let reader = try Store.open(path, options: readOptions)
        defer { reader.close() }
        let snapshot = try reader.snapshot(label: "commit-check")
        defer { snapshot.close() }
        let tree = try snapshot.tree("sdk")
        for entry in written {
            guard let value = try tree?.get(Array(entry.key.utf8))?.array else {
                lines.append("missing \(entry.key) \(entry.version) the file at the path is at version \(snapshot.version) without the key")
                continue
            }
            guard value == entry.value else {
                lines.append("missing \(entry.key) \(entry.version) the file at the path holds another value for the key")
                continue
            }
            lines.append("ack \(entry.key) \(entry.version)" + (entry.kind.map { " " + $0 } ?? ""))
        }
    } catch {
        for entry in written {
            lines.append("missing \(entry.key) \(entry.version) reading the path back failed: \(oneLine(error))")
        }
    }
    return lines
}

private func failureLine(_ error: any Error) -> String {
    if let error = error as? FirnError, case .busy = error { return "busy \(oneLine(error))" }
    return "error \(oneLine(error))"
}

private func oneLine(_ error: any Error) -> String {
    String(describing: error).split(whereSeparator: \.isNewline).joined(separator: " ")
}

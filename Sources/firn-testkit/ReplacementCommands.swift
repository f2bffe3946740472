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
    // and last "done ATTEMPTS". Exits 0 unless it cannot run at all.
    "commit-check": { arguments in
        guard arguments.count == 4, let seconds = Double(arguments[2]), seconds.isFinite, seconds >= 0,
              let pause = UInt32(arguments[3]) else {
            FileHandleStderr.write("usage: firn-testkit commit-check DBPATH PREFIX SECONDS PAUSE_MS\n")
            return 64
        }
        let path = arguments[0], prefix = arguments[1]
        let deadline = monotonicSeconds() + seconds
        var attempt = 0
        while monotonicSeconds() < deadline {
            attempt += 1
            let key = "\(prefix)-\(attempt)"
            printLine(commitAndReadBack(path: path, key: key))
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
    // reads it back as `commit-check` does, and prints that one line.
    "open-paused-commit": { arguments in
        guard arguments.count == 3 else {
            FileHandleStderr.write("usage: firn-testkit open-paused-commit DBPATH KEY GOFILE\n")
            return 64
        }
        let goFile = arguments[2]
        let paused = Atomic<Bool>(false)
        printLine(commitAndReadBack(path: arguments[0], key: arguments[1]) { io in
            // Only the first open pauses (an engine may reopen the file).
            if !paused.exchange(true, ordering: .sequentiallyConsistent) {
                printLine("opened")
                let deadline = monotonicSeconds() + 60
                while access(goFile, F_OK) != 0 && monotonicSeconds() < deadline { usleep(1_000) }
            }
            return io
        })
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
    let store: Store
    do { store = try Store.open(path, options: options) } catch { return failureLine(error) }
    defer { store.close() }
    let version: UInt64
    do {
        let txn = try store.beginWrite()
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
    // Still open: our session is held, so nobody may have replaced the file
    // since our commit, and it was the file at the path when we committed.
    var readOptions = StoreOptions()
    readOptions.create = false
    readOptions.readOnly = true
    do {
        let reader = try Store.open(path, options: readOptions)
        defer { reader.close() }
        let snapshot = try reader.snapshot(label: "commit-check")
        defer { snapshot.close() }
        guard let value = try snapshot.tree("sdk")?.get(Array(key.utf8))?.array else {
            return "missing \(key) \(version) the file at the path is at version \(snapshot.version) without the key"
        }
        guard value == Array("value \(key)".utf8) else {
            return "missing \(key) \(version) the file at the path holds another value for the key"
        }
        return "ack \(key) \(version)"
    } catch {
        return "missing \(key) \(version) reading the path back failed: \(oneLine(error))"
    }
}

private func failureLine(_ error: any Error) -> String {
    if let error = error as? FirnError, case .busy = error { return "busy \(oneLine(error))" }
    return "error \(oneLine(error))"
}

private func oneLine(_ error: any Error) -> String {
    String(describing: error).split(whereSeparator: \.isNewline).joined(separator: " ")
}

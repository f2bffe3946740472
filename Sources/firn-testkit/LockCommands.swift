// Lock-file commands: each opens `DBPATH.lock`, takes something (a pin, the
// writer lock, a session), prints "ready" on stdout and holds it for
// SECONDS, so a test can observe it from another process and kill it.
import FirnCore
#if canImport(Glibc)
import Glibc
#endif

/// Lock-file commands by name.
let lockCommands: [String: @Sendable ([String]) throws -> Int32] = [
    // lock-pin DBPATH VERSION LABEL SECONDS: claims a `read` pin on VERSION.
    "lock-pin": { arguments in
        guard arguments.count == 4, let version = UInt64(arguments[1]), let seconds = Double(arguments[3]) else {
            return usage("lock-pin DBPATH VERSION LABEL SECONDS")
        }
        let lock = try LockFile.open(databasePath: arguments[0])
        let slot = try lock.claimPin(version: version, kind: .read, label: arguments[2])
        announceReady()
        hold(seconds)
        lock.releasePin(slot)
        lock.close()
        return 0
    },
    // lock-writer DBPATH SECONDS: holds the writer lock.
    "lock-writer": { arguments in
        guard arguments.count == 2, let seconds = Double(arguments[1]) else {
            return usage("lock-writer DBPATH SECONDS")
        }
        let lock = try LockFile.open(databasePath: arguments[0])
        // Generous: tests start it while another process keeps the lock
        // and let it go later, on a machine the whole suite loads.
        let lease = try lock.lockWriter(timeout: .seconds(60))
        announceReady()
        hold(seconds)
        lock.unlockWriter(lease)
        lock.close()
        return 0
    },
    // lock-session DBPATH SECONDS: holds the database open (a session).
    "lock-session": { arguments in
        guard arguments.count == 2, let seconds = Double(arguments[1]) else {
            return usage("lock-session DBPATH SECONDS")
        }
        let lock = try LockFile.open(databasePath: arguments[0])
        announceReady()
        hold(seconds)
        lock.close()
        return 0
    },
]

private func usage(_ text: String) -> Int32 {
    FileHandleStderr.write("usage: firn-testkit \(text)\n")
    return 64
}

/// Writes "ready\n" straight to fd 1 (no stdio buffering to flush).
private func announceReady() { writeLine("ready") }

private func hold(_ seconds: Double) { sleepSeconds(seconds) }

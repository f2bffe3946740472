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
            return usageError("lock-pin DBPATH VERSION LABEL SECONDS")
        }
        return try holdLock(arguments[0], for: seconds) { lock in
            let slot = try lock.claimPin(version: version, kind: .read, label: arguments[2])
            return { lock.releasePin(slot) }
        }
    },
    // lock-writer DBPATH SECONDS: holds the writer lock.
    "lock-writer": { arguments in
        guard arguments.count == 2, let seconds = Double(arguments[1]) else {
            return usageError("lock-writer DBPATH SECONDS")
        }
        return try holdLock(arguments[0], for: seconds) { lock in
            // Generous: tests start it while another process keeps the lock
            // and let it go later, on a machine the whole suite loads.
            let lease = try lock.lockWriter(timeout: .seconds(60))
            return { lock.unlockWriter(lease) }
        }
    },
    // lock-session DBPATH SECONDS: holds the database open (a session).
    "lock-session": { arguments in
        guard arguments.count == 2, let seconds = Double(arguments[1]) else {
            return usageError("lock-session DBPATH SECONDS")
        }
        return try holdLock(arguments[0], for: seconds) { _ in {} }
    },
]

/// Opens `DBPATH.lock`, takes what `take` takes, prints "ready", holds it
/// for `seconds`, lets it go (the closure `take` returned) and closes the
/// lock file.
private func holdLock(_ path: String, for seconds: Double, _ take: (LockFile) throws -> () -> Void) throws -> Int32 {
    let lock = try LockFile.open(databasePath: path)
    let release = try take(lock)
    writeLine("ready")
    sleepSeconds(seconds)
    release()
    lock.close()
    return 0
}

extension Store {
    /// Waits until a version newer than `version` is committed (by any
    /// process), at most `timeout`; returns the latest version then. Sleeps
    /// on the lock file's futex, so it costs nothing while nothing commits.
    /// `close()` wakes it: it then throws `.misuse` saying the store closed.
    public func waitForCommit(after version: UInt64, timeout: Duration) throws(FirnError) -> UInt64 {
        try waitOnLockFile(for: "a commit", timeout: timeout) { lockFile in
            let latest = lockFile.latestVersion
            return (latest, latest > version)
        }
    }

    /// Waits until `version` is durable (`durableVersion ≥ version`), at most
    /// `timeout`; returns the durable version then (lower than `version` on
    /// timeout). Woken through the lock file's futex by `sync()` and durable
    /// commits in any process on the host, and by `close()` (then `.misuse`).
    public func waitForDurable(version: UInt64, timeout: Duration) throws(FirnError) -> UInt64 {
        try waitOnLockFile(for: "durability", timeout: timeout) { lockFile in
            let durable = lockFile.durableVersion
            return (durable, durable >= version)
        }
    }

    /// The one wait loop on the lock file's change counter: read the
    /// counter, then the state, then sleep only if the counter is still the
    /// one read, so no publication (or `close()`) between the check and the
    /// sleep is missed. `read` returns the value to return and whether the
    /// wait is over.
    private func waitOnLockFile(
        for what: String, timeout: Duration, _ read: (LockFile) -> (value: UInt64, done: Bool)
    ) throws(FirnError) -> UInt64 {
        guard let lockFile else {
            throw FirnError.misuse("\(path): waiting for \(what) needs the lock file (the store is read-only without one)")
        }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let counter = lockFile.changeCounter
            if isClosed { throw FirnError.misuse("\(path): the store was closed while waiting for \(what)") }
            let (value, done) = read(lockFile)
            if done { return value }
            let remaining = deadline - clock.now
            if remaining <= .zero { return value }
            _ = lockFile.waitForChange(after: counter, timeout: remaining)
        }
    }
}

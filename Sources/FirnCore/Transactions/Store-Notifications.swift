extension Store {
    /// Waits until a version newer than `version` is committed (by any
    /// process), at most `timeout`; returns the latest version then. Sleeps
    /// on the lock file's futex, so it costs nothing while nothing commits.
    /// `close()` wakes it: it then throws `.misuse` saying the store closed.
    public func waitForCommit(after version: UInt64, timeout: Duration) throws(FirnError) -> UInt64 {
        guard let lockFile else {
            throw FirnError.misuse("\(path): change notification needs the lock file (the store is read-only without one)")
        }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let counter = lockFile.changeCounter
            if isClosed { throw FirnError.misuse("\(path): the store was closed while waiting for a commit") }
            let latest = lockFile.latestVersion
            if latest > version { return latest }
            let remaining = deadline - clock.now
            if remaining <= .zero { return latest }
            _ = lockFile.waitForChange(after: counter, timeout: remaining)
        }
    }
}

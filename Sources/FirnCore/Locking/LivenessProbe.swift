#if canImport(Glibc)
import Glibc
#endif
import CFirnShims

/// Answers "is process pid still holding the database open?" from the OFD
/// lock on its liveness byte (`LockFileLayout.livenessBase + pid`), caching
/// each answer for the duration of one pass over a table so a pass costs
/// at most one `fcntl(F_OFD_GETLK)` per distinct pid.
struct LivenessProbe {
    let fd: Int32
    let ownPID: Int32
    private var cache: [Int32: Bool] = [:]

    init(fd: Int32, ownPID: Int32) {
        self.fd = fd
        self.ownPID = ownPID
    }

    /// Our own pid is alive; a pid that is not positive never is (damaged
    /// slot). When the probe itself fails the pid counts as alive, so a
    /// failure never makes us free someone's pin.
    mutating func isAlive(_ pid: Int32) -> Bool {
        if pid == ownPID { return true }
        if pid <= 0 { return false }
        if let known = cache[pid] { return known }
        let result = firn_ofd_probe(fd, 1, LockFileLayout.livenessBase + Int64(pid), 1)
        let alive = result != 0
        cache[pid] = alive
        return alive
    }
}

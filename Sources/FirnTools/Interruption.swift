import FirnCore
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// SIGINT/SIGTERM handling for commands that write: temporary files are
/// registered here, and the handler removes them (with `unlink`, which is
/// async-signal-safe) and exits 130, so an interrupted run changes nothing.
/// Around the commit point (a rename into place) signals are blocked, so an
/// operation is either wholly done or not at all.
package enum Interruption {
    private static let capacity = 16
    /// NUL-terminated paths, raw memory so the handler reads no Swift objects.
    nonisolated(unsafe) private static let slots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let p = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
        p.initialize(repeating: nil, count: capacity)
        return p
    }()
    private static let lock = Locked(())
    private static let requested = Atomic<Bool>(false)

    /// Installs the handler for SIGINT and SIGTERM (no SA_RESTART: blocking
    /// reads return EINTR). `exitOnSignal` false only records the request
    /// (for `hold`, which ends normally when interrupted).
    package static func install(exitOnSignal: Bool = true) {
        _ = slots
        var action = sigaction()
        if exitOnSignal {
            action.__sigaction_handler.sa_handler = { _ in
                Interruption.removeRegistered()
                _exit(130)
            }
        } else {
            action.__sigaction_handler.sa_handler = { _ in
                Interruption.requested.store(true, ordering: .relaxed)
            }
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
        // A parent may have started us with these blocked (the mask survives exec).
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        // A closed pipe on stdout becomes EPIPE, which the command handles
        // (`ToolError.outputClosed`), not a death by signal.
        signal(SIGPIPE, SIG_IGN)
    }

    /// True once SIGINT/SIGTERM arrived (with `install(exitOnSignal: false)`).
    package static var isRequested: Bool { requested.load(ordering: .relaxed) }

    private static func removeRegistered() {
        for i in 0..<capacity {
            if let path = slots[i] { unlink(path) }
        }
    }

    /// Registers a temporary file to remove on interruption.
    package static func register(_ path: String) {
        lock.withLock { _ in
            for i in 0..<capacity where slots[i] == nil {
                slots[i] = strdup(path)
                return
            }
        }
    }

    /// Forgets a temporary file (renamed into place or removed).
    package static func unregister(_ path: String) {
        lock.withLock { _ in
            for i in 0..<capacity {
                if let p = slots[i], String(cString: p) == path {
                    slots[i] = nil
                    free(p)
                }
            }
        }
    }

    /// Runs `body` with SIGINT and SIGTERM blocked (delivered after it).
    package static func critical<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        var set = sigset_t()
        var old = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &set, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
        return try body()
    }
}

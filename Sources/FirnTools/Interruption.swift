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

    /// The line the handler writes before it exits (`setMessage`): two
    /// buffers, the one in use and the next, so the handler never reads one
    /// being written; `message` holds which (bit 0) and its length.
    private static let messageCapacity = 1024
    nonisolated(unsafe) private static let messageBuffers: UnsafeMutablePointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 2 * messageCapacity)
        p.initialize(repeating: 0, count: 2 * messageCapacity)
        return p
    }()
    private static let message = Atomic<Int>(0)

    /// Installs the handler for SIGINT and SIGTERM (no SA_RESTART: blocking
    /// reads return EINTR). `exitOnSignal` false only records the request
    /// (for `hold`, which ends normally when interrupted).
    package static func install(exitOnSignal: Bool = true) {
        _ = slots
        _ = messageBuffers
        var action = sigaction()
        if exitOnSignal {
            action.__sigaction_handler.sa_handler = { _ in
                Interruption.removeRegistered()
                Interruption.writeMessage()
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

    /// The line written on stderr when a signal ends the command (with
    /// `install()`), instead of none: what was done, when something was
    /// (`load`'s committed batches). Set it where no signal can arrive
    /// half-way (`critical`), so it is true of what the handler leaves.
    package static func setMessage(_ text: String) {
        let bytes = Array(text.utf8.prefix(messageCapacity))
        let next = 1 - (message.load(ordering: .acquiring) & 1)
        let buffer = messageBuffers + next * messageCapacity
        for (i, byte) in bytes.enumerated() { buffer[i] = byte }
        message.store(bytes.count << 1 | next, ordering: .releasing)
    }

    /// Async-signal-safe: write(2) of the message set last, from raw
    /// memory (no allocation, no lock).
    private static func writeMessage() {
        let value = message.load(ordering: .acquiring)
        let count = value >> 1
        guard count > 0 else { return }
        _ = SystemCall.writeAll(2, UnsafeRawBufferPointer(start: messageBuffers + (value & 1) * messageCapacity, count: count))
    }

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

import Dispatch

/// The in-process half of the writer lock: one permit per `LockFile`,
/// handed to waiters in the order they asked (first come, first served),
/// whether they block a thread (with a deadline) or suspend a task (with
/// cancellation). The permit is not tied to a thread: whoever holds it may
/// give it back from any thread. The cross-process half (an OFD lock) is
/// taken by the permit's holder; see `LockFile-Writer.swift`.
final class WriterQueue: Sendable {
    /// One party waiting for the permit.
    private final class Waiter: @unchecked Sendable {
        // All mutable fields are guarded by the queue's mutex.
        var granted = false
        var cancelled = false
        var continuation: CheckedContinuation<Void, any Error>?
        let semaphore: DispatchSemaphore?

        init(blocking: Bool) { semaphore = blocking ? DispatchSemaphore(value: 0) : nil }

        /// Wakes the waiter once it has been granted the permit (outside the mutex).
        func wake() {
            if let semaphore { semaphore.signal() }
            continuation?.resume()
        }
    }

    private struct State {
        var held = false
        var waiters: [Waiter] = []
    }

    private let state = Locked(State())

    /// Takes the permit if nobody holds it and nobody is waiting for it.
    func tryAcquire() -> Bool {
        state.withLock { s in
            guard !s.held, s.waiters.isEmpty else { return false }
            s.held = true
            return true
        }
    }

    /// Waits for the permit until `deadline` (monotonic nanoseconds; nil:
    /// forever). True when granted.
    func acquire(deadline: UInt64?) -> Bool {
        let waiter: Waiter? = state.withLock { s in
            if !s.held && s.waiters.isEmpty {
                s.held = true
                return nil
            }
            let waiter = Waiter(blocking: true)
            s.waiters.append(waiter)
            return waiter
        }
        guard let waiter, let semaphore = waiter.semaphore else { return true }
        let outcome: DispatchTimeoutResult
        if let deadline {
            let now = monotonicNanoseconds()
            let wait = deadline > now ? Int(clamping: deadline - now) : 0
            outcome = semaphore.wait(timeout: .now() + .nanoseconds(wait))
        } else {
            semaphore.wait()
            outcome = .success
        }
        if outcome == .success { return true }
        // Timed out: leave the queue, unless the permit arrived meanwhile.
        let granted = state.withLock { s in
            if waiter.granted { return true }
            s.waiters.removeAll { $0 === waiter }
            return false
        }
        if granted { semaphore.wait() }  // consume the grant's signal
        return granted
    }

    /// Suspends until the permit is granted. Throws `CancellationError`
    /// (never holding the permit) when the task is cancelled first.
    func acquire() async throws {
        let waiter = Waiter(blocking: false)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Start { case granted, cancelled, waiting }
                let start: Start = state.withLock { s in
                    if waiter.cancelled { return .cancelled }
                    if !s.held && s.waiters.isEmpty {
                        s.held = true
                        waiter.granted = true
                        return .granted
                    }
                    waiter.continuation = continuation
                    s.waiters.append(waiter)
                    return .waiting
                }
                switch start {
                case .granted: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .waiting: break
                }
            }
        } onCancel: {
            let continuation: CheckedContinuation<Void, any Error>? = state.withLock { s in
                waiter.cancelled = true
                guard !waiter.granted, let index = s.waiters.firstIndex(where: { $0 === waiter }) else { return nil }
                s.waiters.remove(at: index)
                defer { waiter.continuation = nil }
                return waiter.continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// How many are waiting (for tests and diagnostics).
    var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Gives the permit to the longest waiter, or frees it.
    func release() {
        let next: Waiter? = state.withLock { s in
            guard !s.waiters.isEmpty else {
                s.held = false
                return nil
            }
            let next = s.waiters.removeFirst()
            next.granted = true
            return next
        }
        next?.wake()
    }
}

import Dispatch
import FirnCore
import Foundation

/// Autorefresh of queue-bound instances: a serial queue is the event loop
/// the reference documents refresh at. One watcher thread per store sleeps
/// on the lock file's futex while queue-bound instances of the store live;
/// when any process publishes a commit it enqueues one refresh block on
/// each such instance's queue. The refresh runs between the queue's blocks,
/// so a block never sees its instance change under it, and an instance
/// with a block already pending gets no second one: one refresh per burst.
final class QueueAutorefresh: @unchecked Sendable {
    /// One watched instance. Its core is only used on its queue (the
    /// watcher thread only tests whether it is gone), hence unchecked.
    private final class Watched: @unchecked Sendable {
        /// Not `weak` (see `UnretainedReference`).
        let core: UnretainedReference<DatabaseCore>
        /// Where the refresh runs: a block on the queue, a task on the actor.
        let binding: InstanceBinding
        /// True while a refresh block is enqueued and has not started.
        let pending = Locked(false)

        init(core: DatabaseCore, binding: InstanceBinding) {
            self.core = core.unretainedReference()
            self.binding = binding
        }
    }

    private let store: Store
    private let watched = Locked<[Watched]>([])

    /// The watcher of each store path that has one running.
    private static let watchers = Locked<[String: QueueAutorefresh]>([:])
    /// How long the watcher sleeps between checks that it still has
    /// instances to serve (a commit wakes it at once).
    private static let idleCheck = Duration.milliseconds(500)

    private init(store: Store) { self.store = store }

    /// Refreshes `core`, bound to `queue`, between `queue`'s blocks after
    /// each burst of commits, while it lives and has autorefresh on.
    static func watch(_ core: DatabaseCore, queue: DispatchQueue) {
        watch(core, binding: core.binding)
    }

    /// The same for an actor-bound instance: the refresh and delivery run
    /// as a task on the actor.
    static func watch(_ core: DatabaseCore, binding: InstanceBinding) {
        let entry = Watched(core: core, binding: binding)
        // Commits after the version the instance pinned count, also those
        // made before the watcher thread first looks at the lock file.
        let version = core.snapshot.version
        // Added under the registry's lock: a watcher decides to stop under
        // it too, so it cannot stop between being found and being given this.
        let (watcher, start) = watchers.withLock { watchers -> (QueueAutorefresh, Bool) in
            if let running = watchers[core.store.path], running.store === core.store {
                running.watched.withLock { $0.append(entry) }
                return (running, false)
            }
            let watcher = QueueAutorefresh(store: core.store)
            watcher.watched.withLock { $0.append(entry) }
            watchers[core.store.path] = watcher
            return (watcher, true)
        }
        if start {
            let thread = Thread { watcher.run(from: version) }
            thread.name = "firn-autorefresh"
            thread.start()
        } else if let latest = core.store.lockFile?.latestVersion, latest > version {
            // The running watcher may have seen that commit already.
            watcher.schedule(entry)
        }
    }

    private func run(from version: UInt64) {
        guard store.lockFile != nil else { return stop() }
        var seen = version
        while true {
            let latest: UInt64
            do {
                latest = try store.waitForCommit(after: seen, timeout: Self.idleCheck)
            } catch {
                return stop()  // the store was closed
            }
            // Stopping is decided under the registry's lock (see `watch`).
            let done = Self.watchers.withLock { watchers -> Bool in
                let alive = watched.withLock { watched -> Bool in
                    watched.removeAll { $0.core.isCleared }
                    return !watched.isEmpty
                }
                if !alive, watchers[store.path] === self { watchers[store.path] = nil }
                return !alive
            }
            if done { return }
            guard latest > seen else { continue }
            seen = latest
            for entry in watched.withLock({ $0 }) { schedule(entry) }
        }
    }

    private func stop() {
        Self.watchers.withLock { watchers in
            if watchers[store.path] === self { watchers[store.path] = nil }
        }
    }

    private func schedule(_ entry: Watched) {
        let enqueue = entry.pending.withLock { pending -> Bool in
            defer { pending = true }
            return !pending
        }
        guard enqueue else { return }
        let scheduled = entry.binding.schedule {
            entry.pending.withLock { $0 = false }
            entry.core.object?.autorefreshBetweenBlocks()
        }
        if !scheduled { entry.pending.withLock { $0 = false } }
    }
}

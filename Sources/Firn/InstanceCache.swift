import Dispatch
import FirnCore

/// The process's open stores (one per path, shared by every instance and
/// frozen value of it) and live instances (one per configuration and
/// binding: a thread or a serial queue), held without keeping them alive
/// (stores `weak`, instances by `UnretainedReference`, which keeps every
/// object's retain of its instance on the runtime's fast path): they close
/// with their last user.
enum InstanceCache {
    private struct InstanceKey: Hashable {
        let configuration: [String]
        let binding: InstanceBinding.Key
    }

    private final class WeakStore: Sendable {
        nonisolated(unsafe) weak var store: Store?
        init(_ store: Store) { self.store = store }
    }

    private static let instances = Locked<[InstanceKey: UnretainedReference<DatabaseCore>]>([:])
    private static let stores = Locked<[String: WeakStore]>([:])

    /// The caller's instance for `configuration`, opened when it has none:
    /// the main actor's when the caller runs on it (Realm's rule: an
    /// instance opened on the main actor is bound to the main actor), else
    /// the calling thread's.
    static func instance(_ configuration: Configuration) throws(DatabaseError) -> DatabaseCore {
        if QueueIdentity.main.isCurrent { return try mainActorInstance(configuration) }
        // The thread's identity (its name is read from /proc) only when
        // an instance is made, not on every lookup.
        return try instance(configuration, key: .thread(currentKernelThreadID())) { .thread(.current) }
    }

    /// The instance of `configuration` bound to the main actor, opened when
    /// it has none; watched for autorefresh like a queue-bound one (the
    /// main queue is the main actor's event loop).
    private static func mainActorInstance(_ configuration: Configuration) throws(DatabaseError) -> DatabaseCore {
        let key = InstanceKey(configuration: configuration.identity, binding: .mainActor)
        if let core = cached(key) { return core }
        let core = try instance(configuration, key: key.binding) { .mainActor }
        QueueAutorefresh.watch(core, binding: core.binding)
        return core
    }

    /// The instance of `configuration` bound to `queue`, opened when it has
    /// none. The caller runs on `queue` (checked by the caller).
    static func instance(_ configuration: Configuration, queue: QueueIdentity) throws(DatabaseError) -> DatabaseCore {
        // The main queue is the main actor's executor: one instance for both.
        if queue.token === QueueIdentity.main.token { return try mainActorInstance(configuration) }
        let key = InstanceKey(configuration: configuration.identity, binding: .queue(ObjectIdentifier(queue.token)))
        if let core = cached(key) { return core }
        let core = try instance(configuration, key: key.binding) { .queue(queue) }
        QueueAutorefresh.watch(core, queue: queue.queue)
        return core
    }

    /// The instance of `configuration` bound to `actor`, opened when it has
    /// none. The caller runs on `actor` (it is the caller's isolation).
    /// Watched for autorefresh like a queue-bound one: an actor runs its
    /// tasks one at a time, its event loop, and refreshes between them.
    static func instance(_ configuration: Configuration, actor: ActorIdentity) throws(DatabaseError) -> DatabaseCore {
        // `Database.open` on the main actor and `Database(configuration:)`
        // there give the same instance.
        if actor.actor === MainActor.shared { return try mainActorInstance(configuration) }
        let key = InstanceKey(configuration: configuration.identity, binding: .actor(ObjectIdentifier(actor.actor)))
        if let core = cached(key) { return core }
        let core = try instance(configuration, key: key.binding) { .actor(actor) }
        QueueAutorefresh.watch(core, binding: core.binding)
        return core
    }

    /// The instance the caller would use for `configuration` without naming
    /// a binding: its actor's, when it runs on an actor that has one; its
    /// queue's, when it runs on a bound queue that has one; otherwise its
    /// thread's. `thaw()` and `@ThreadSafe` read through this.
    static func callersInstance(_ configuration: Configuration) throws(DatabaseError) -> DatabaseCore {
        let identity = configuration.identity
        // Actors cannot be looked up from the running code: ask each
        // actor-bound instance of the configuration (few) whether it runs.
        let onActor = instances.withLock { instances in
            instances.first { key, reference in
                guard key.configuration == identity, case .actor = key.binding, let core = reference.object else { return false }
                return core.binding.isCurrent
            }?.value.object
        }
        if let onActor { return onActor }
        if QueueIdentity.main.isCurrent { return try mainActorInstance(configuration) }
        if let token = QueueIdentity.currentToken,
           let core = cached(InstanceKey(configuration: configuration.identity, binding: .queue(ObjectIdentifier(token)))) {
            return core
        }
        return try instance(configuration)
    }

    /// The other live instances of `core`'s file bound to where the caller
    /// runs (its thread, queue or actor): a synchronous write of one of
    /// them must first let their queued async writes run, or it would wait
    /// for a writer lock they hold for a block only this caller can run.
    static func siblings(of core: DatabaseCore) -> [DatabaseCore] {
        let store = core.store
        let candidates = instances.withLock { instances in
            instances.values.compactMap { reference -> DatabaseCore? in
                guard !reference.refers(to: core), let other = reference.object, other.store === store else { return nil }
                return other
            }
        }
        return candidates.filter { $0.binding.isCurrent }
    }

    /// Forgets a closed instance: the next request for its configuration
    /// and binding opens a new one.
    static func forget(_ core: DatabaseCore) {
        instances.withLock { instances in
            instances = instances.filter { !$0.value.isCleared && !$0.value.refers(to: core) }
        }
    }

    private static func cached(_ key: InstanceKey) -> DatabaseCore? {
        // A thread id can be reused by a later thread: only an instance
        // whose binding is the caller's counts.
        guard let core = instances.withLock({ $0[key]?.object }), core.binding.isCurrent else { return nil }
        return core
    }

    private static func instance(
        _ configuration: Configuration, key binding: InstanceBinding.Key, _ makeBinding: () -> InstanceBinding
    ) throws(DatabaseError) -> DatabaseCore {
        let key = InstanceKey(configuration: configuration.identity, binding: binding)
        if let core = cached(key) { return core }
        // Only code running on the binding (one thread, or the serial
        // queue) creates instances under this key: no race to guard.
        let core = try DatabaseCore(configuration: configuration, store: try store(configuration), binding: makeBinding())
        instances.withLock { instances in
            instances = instances.filter { !$0.value.isCleared }
            instances[key] = core.unretainedReference()
        }
        return core
    }

    private static func store(_ configuration: Configuration) throws(DatabaseError) -> Store {
        let path = configuration.path, key = configuration.storeKey
        return try stores.withLock { (stores) throws(DatabaseError) -> Store in
            if let store = stores[key]?.store, !store.isClosed { return store }
            if let identifier = configuration.inMemoryIdentifier {
                // Read-only, there must be something to read: data of the
                // identifier that lives on in this process.
                guard !configuration.readOnly else {
                    throw DatabaseError.engine(.notFound(path: "in-memory database \"\(identifier)\"",
                                                         detail: "a read-only configuration opens an existing database, and none is open"))
                }
                let store = try InMemoryFile.open(identifier)
                stores[key] = WeakStore(store)
                return store
            }
            if configuration.readOnly {
                // This process's writable store of the file reads the same;
                // the configuration refuses the writes.
                if let store = stores[path]?.store, !store.isClosed { return store }
                let store = try engine { () throws(FirnError) in try Self.openReadOnly(path) }
                stores[key] = WeakStore(store)
                return store
            }
            var store = try engine { () throws(FirnError) in try Store.open(path) }
            if let shouldCompact = configuration.shouldCompactOnLaunch,
               try engine({ () throws(FirnError) in try CompactOnLaunch.run(store, asking: shouldCompact) }) {
                store.close()
                store = try engine { () throws(FirnError) in try Store.open(path) }
            }
            stores[key] = WeakStore(store)
            return store
        }
    }

    /// The file at `path`, opened without write access; a missing file is
    /// `.notFound` (a read-only configuration creates nothing).
    private static func openReadOnly(_ path: String) throws(FirnError) -> Store {
        guard SystemCall.exists(path, followingLinks: true) else {
            throw FirnError.notFound(path: path, detail: "a read-only configuration opens an existing file")
        }
        var options = StoreOptions()
        options.readOnly = true
        options.create = false
        return try Store.open(path, options: options)
    }
}

import FirnCore

/// The process's open stores (one per path, shared by every instance and
/// frozen value of it) and live instances (one per configuration and
/// thread), held weakly: they close with their last user.
enum InstanceCache {
    private struct InstanceKey: Hashable {
        let configuration: [String]
        let thread: Int64
    }

    private final class WeakCore: @unchecked Sendable {
        weak var core: DatabaseCore?
        init(_ core: DatabaseCore) { self.core = core }
    }

    private final class WeakStore: Sendable {
        nonisolated(unsafe) weak var store: Store?
        init(_ store: Store) { self.store = store }
    }

    private static let instances = Locked<[InstanceKey: WeakCore]>([:])
    private static let stores = Locked<[String: WeakStore]>([:])

    /// The calling thread's instance for `configuration`, opened when it has none.
    static func instance(_ configuration: Configuration) throws(DatabaseError) -> DatabaseCore {
        let key = InstanceKey(configuration: configuration.identity, thread: currentKernelThreadID())
        if let core = instances.withLock({ $0[key]?.core }) { return core }
        // Only this thread creates instances under this key: no race to guard.
        let core = try DatabaseCore(configuration: configuration, store: try store(configuration.path))
        instances.withLock { instances in
            instances = instances.filter { $0.value.core != nil }
            instances[key] = WeakCore(core)
        }
        return core
    }

    private static func store(_ path: String) throws(DatabaseError) -> Store {
        try stores.withLock { (stores) throws(DatabaseError) -> Store in
            if let store = stores[path]?.store, !store.isClosed { return store }
            let store = try engine { () throws(FirnError) in try Store.open(path) }
            stores[path] = WeakStore(store)
            return store
        }
    }
}

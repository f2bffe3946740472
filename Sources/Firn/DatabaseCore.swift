import FirnCore

/// The state behind one live `Database` instance: bound to one thread, it
/// holds one `read` pin (moved by `refresh`) and, between `beginWrite` and
/// commit or cancel, the write transaction. Not thread-safe: every entry
/// point checks the thread first.
final class DatabaseCore: ObjectSource {
    let configuration: Configuration
    let store: Store
    let thread: ThreadIdentity
    private(set) var snapshot: Snapshot
    private(set) var transaction: WriteTransaction?
    private(set) var generation: UInt64 = 1
    /// The first failure of a property setter in this write; the commit throws it.
    private var deferredError: DatabaseError?
    let infos: [ObjectIdentifier: ClassInfo]
    private var readers: [String: TreeReader?] = [:]
    private var readersGeneration: UInt64 = 0
    /// Next generated key per type without a primary key, in this write.
    var nextIDs: [String: UInt64] = [:]
    private weak var frozen: FrozenVersion?

    init(configuration: Configuration, store: Store) throws(DatabaseError) {
        self.configuration = configuration
        self.store = store
        thread = ThreadIdentity.current
        var infos: [ObjectIdentifier: ClassInfo] = [:]
        for type in configuration.objectTypes { infos[ObjectIdentifier(type)] = try ClassInfo.of(type) }
        self.infos = infos
        try SchemaCheck.prepare(store: store, schemas: infos.values.map(\.schema))
        let thread = thread
        snapshot = try engine { () throws(FirnError) in try store.snapshot(kind: .read, label: "Database on \(thread.description)") }
        snapshot.setHolder(threadID: thread.tid, label: "Database on \(thread.description)")
    }

    deinit {
        transaction?.abort()
        snapshot.close()
    }

    var isFrozen: Bool { false }

    func checkAccess() {
        if !thread.isCurrent { thread.failIncorrectThread() }
    }

    func changed() { generation &+= 1 }

    func info(_ type: Object.Type) throws(DatabaseError) -> ClassInfo {
        guard let info = infos[ObjectIdentifier(type)] else {
            throw DatabaseError.typeNotInConfiguration(type: String(describing: type))
        }
        return info
    }

    // MARK: reading

    private func reader(_ name: String) throws(DatabaseError) -> TreeReader? {
        if readersGeneration != generation {
            readers.removeAll(keepingCapacity: true)
            readersGeneration = generation
        }
        if let cached = readers[name] { return cached }
        let snapshot = snapshot
        let reader = try engine { () throws(FirnError) in try snapshot.tree(name) }
        readers[name] = .some(reader)
        return reader
    }

    func value(in tree: String, key: [UInt8]) throws(DatabaseError) -> RecordBytes? {
        if let transaction {
            return try engine { () throws(FirnError) in
                try transaction.tree(tree, create: false)?.get(key).map(RecordBytes.owned)
            }
        }
        guard let reader = try reader(tree) else { return nil }
        return try engine { () throws(FirnError) in try reader.get(key).map(RecordBytes.mapped) }
    }

    func cursor(in tree: String) throws(DatabaseError) -> Cursor? {
        if let transaction {
            return try engine { () throws(FirnError) in try transaction.tree(tree, create: false)?.cursor() }
        }
        return try reader(tree)?.cursor()
    }

    func count(in tree: String) throws(DatabaseError) -> Int {
        if let transaction {
            let count = try engine { () throws(FirnError) in try transaction.tree(tree, create: false)?.count }
            return Int(clamping: count ?? 0)
        }
        return Int(clamping: try reader(tree)?.count ?? 0)
    }

    func objectCreated() {}
    func objectReleased() {}

    /// A live object of `type` for `key`, nil when no record has that key.
    func object<T: Object>(_ type: T.Type, key: [UInt8]) throws(DatabaseError) -> T? {
        checkAccess()
        let info = try info(type)
        guard let record = try record(info, key: key) else { return nil }
        let object = T()
        object.managed = ManagedObject(source: self, info: info, key: key, record: record)
        return object
    }

    /// Moves the read pin to the latest version (same reader slot).
    @discardableResult
    func refresh() throws(DatabaseError) -> Bool {
        checkAccess()
        guard transaction == nil else { return false }
        let before = snapshot.version
        let store = store, snapshot = snapshot
        self.snapshot = try engine { () throws(FirnError) in try store.refresh(snapshot) }
        changed()
        return self.snapshot.version != before
    }

    /// The frozen version this instance reads now, shared with every other
    /// frozen value of that version in the process.
    func frozenVersion(operation: String) throws(DatabaseError) -> FrozenVersion {
        checkAccess()
        guard transaction == nil else { throw DatabaseError.frozen(type: "Database", operation: "\(operation) inside a write transaction") }
        if let frozen, frozen.version == snapshot.version { return frozen }
        let store = store, version = snapshot.version
        let share = try engine { () throws(FirnError) in
            try store.sharedSnapshot(version: version, kind: .frozen, label: "frozen objects")
        }
        let frozen = FrozenVersion(share: share, configuration: configuration, infos: infos)
        self.frozen = frozen
        return frozen
    }

    // MARK: writing

    var isInWriteTransaction: Bool { transaction != nil }

    func beginWrite() throws(DatabaseError) {
        checkAccess()
        guard transaction == nil else { throw DatabaseError.alreadyInWriteTransaction }
        let store = store
        transaction = try engine { () throws(FirnError) in try store.beginWrite() }
        deferredError = nil
        nextIDs = [:]
        changed()
    }

    func commitWrite() throws(DatabaseError) {
        checkAccess()
        guard let transaction else { throw DatabaseError.notInWriteTransaction(operation: "commitWrite") }
        self.transaction = nil
        changed()
        if let deferredError {
            transaction.abort()
            throw deferredError
        }
        do {
            _ = try transaction.commit()
        } catch {
            transaction.abort()
            throw DatabaseError.engine(error)
        }
        // The instance reads what it just wrote, as after any commit.
        try refresh()
    }

    func cancelWrite() {
        checkAccess()
        transaction?.abort()
        transaction = nil
        changed()
    }

    func `defer`(_ error: DatabaseError) {
        if deferredError == nil { deferredError = error }
    }
}

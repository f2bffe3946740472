import FirnCore

/// The link from a managed `Object` to its record: the source it reads,
/// the type and the key. Properties are read from the record on demand
/// (the record is cached until the source's generation changes), so an
/// object costs a key, not a copy of its properties.
final class ManagedObject {
    let source: any ObjectSource
    /// Frozen objects are counted on their pin (`objectCreated`); live
    /// ones skip the call when released.
    private let counted: Bool
    /// Unretained: `ClassInfo.of` keeps every class's info for the life of
    /// the process. Retaining it in each object, or loading it as an
    /// `unowned(unsafe)` reference (which retains it for each use), made
    /// threads reading objects of one class at once bounce the info's
    /// reference count between them; the hot paths below borrow it.
    private let infoReference: Unmanaged<ClassInfo>
    var info: ClassInfo { infoReference.takeUnretainedValue() }
    private let keyBytes: ObjectKeyBytes
    /// The object's key in its type's tree (an array made on each use).
    var key: [UInt8] { keyBytes.array }
    /// The source's session when this object was made (see `invalidate()`).
    let session: UInt64
    private var cachedGeneration: UInt64 = 0
    private var cachedRecord: RecordBytes?

    /// `record`: the record when the caller has just read it (a lookup, a
    /// cursor step), so the first property read does not look it up again.
    convenience init(source: any ObjectSource, info: ClassInfo, key: [UInt8], record: RecordBytes? = nil) {
        self.init(source: source, info: info, keyBytes: ObjectKeyBytes(key), record: record)
    }

    init(source: any ObjectSource, info: ClassInfo, keyBytes: ObjectKeyBytes, record: RecordBytes? = nil) {
        self.source = source
        infoReference = Unmanaged.passUnretained(info)
        self.keyBytes = keyBytes
        session = source.session
        if let record {
            cachedRecord = record
            cachedGeneration = source.generation
        }
        counted = source.isFrozen
        if counted { source.objectCreated() }
    }

    deinit { if counted { source.objectReleased() } }

    var isInvalidated: Bool {
        source.checkAccess()
        return session != source.session || (try? record()) == nil
    }

    /// Stops the program when the object is used off its instance's
    /// binding, or when the instance it was read through released its
    /// version (`invalidate()`) since: it would silently read another one.
    func checkUsable(_ index: Int) {
        source.checkAccess()
        if session != source.session {
            fatalError("Firn: \(DatabaseError.invalidatedInstance(type: info.name)) (using \(info.propertyName(index)))")
        }
    }

    func record() throws(DatabaseError) -> RecordBytes? {
        if let cachedRecord, cachedGeneration == source.generation { return cachedRecord }
        let record = try source.record(info, key: key)
        cachedRecord = record
        cachedGeneration = source.generation
        return record
    }

    /// The schema index of the property whose wrapper lies at `offset`.
    @inline(__always)
    func propertyIndex(ofWrapperAt offset: Int) -> Int {
        infoReference._withUnsafeGuaranteedRef { $0.index(ofWrapperAt: offset) }
    }

    /// Property `index` of the record. A getter cannot throw: a deleted
    /// object or an unreadable record stops the program with the reason.
    /// The caller checked the binding (`_ManagedAccess`).
    func read<V: PersistableValue>(_ index: Int, as _: V.Type) -> V {
        do {
            return try checkedRead(index, as: V.self)
        } catch .invalidatedObject {
            fatalError("Firn: \(DatabaseError.invalidatedObject(type: info.name)) (reading \(info.schema.properties[index].name))")
        } catch {
            fatalError("Firn: \(info.name).\(info.schema.properties[index].name): \(error)")
        }
    }

    /// `read`, throwing where it stops the program: `.invalidatedObject`
    /// for a deleted object, the value type's `_undecodable` error for a
    /// field it cannot hold (an enum's unknown raw value), the engine's
    /// error for a damaged record.
    func checkedRead<V: PersistableValue>(_ index: Int, as _: V.Type) throws(DatabaseError) -> V {
        // Only the type and optionality on this path: copying the whole
        // schema entry retained its strings, which every thread reading
        // this class shares.
        let (type, isOptional) = infoReference._withUnsafeGuaranteedRef {
            ($0.schema.properties[index].type, $0.schema.properties[index].isOptional)
        }
        guard let record = try record() else { throw DatabaseError.invalidatedObject(type: info.name) }
        let value = try engine { () throws(FirnError) in
            try record.withBytes { bytes throws(FirnError) in try ObjectRecord.value(index, as: type, in: bytes) }
        }
        if value == nil, !isOptional { return V._persistedDefault }
        guard let decoded = V._persisted(from: PersistedField(value)) else {
            let name = info.schema.properties[index].name
            guard let value else { throw DatabaseError.typeMismatch(type: info.name, property: name, expected: "\(V.self)", found: "null") }
            throw V._undecodable(PersistedField(value), type: info.name, property: name)
        }
        return decoded
    }

    /// The live instance in a write transaction that property `index` may
    /// be set through, and the property. A setter cannot throw: used off
    /// the instance's thread, on a frozen object or outside a write, it
    /// stops the program with the reason.
    func settable(_ index: Int) -> (DatabaseCore, PropertySchema) {
        source.checkAccess()
        let property = info.schema.properties[index]
        guard let core = source as? DatabaseCore else {
            fatalError("Firn: \(DatabaseError.frozen(type: info.name, operation: "set \(property.name)"))")
        }
        guard core.transaction != nil else {
            fatalError("Firn: \(DatabaseError.notInWriteTransaction(operation: "setting \(info.name).\(property.name)"))")
        }
        return (core, property)
    }

    /// Sets property `index`. Needs the live instance's write transaction;
    /// a setter cannot throw, so misuse stops the program with the reason,
    /// and an engine failure is kept and thrown by the commit.
    func write(_ index: Int, _ field: PersistedField) {
        let (core, property) = settable(index)
        if property.isPrimaryKey {
            core.defer(DatabaseError.primaryKeyChange(type: info.name, property: property.name))
            return
        }
        do {
            try core.update(info, key: key, index: index, field: field)
        } catch {
            core.defer(error)
        }
    }
}

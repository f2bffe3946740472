import FirnCore

extension Database {
    /// The live object a `ThreadSafeReference` refers to, in this instance,
    /// or nil when it was deleted meanwhile. Consumes the reference (its pin
    /// is released); a second resolve throws `.referenceAlreadyResolved`.
    /// An instance reading an older version than the reference's is
    /// refreshed first, so what the sender saw is visible.
    public func resolve<T: Object>(_ reference: ThreadSafeReference<T>) throws(DatabaseError) -> T? {
        let core = try resolver(reference)
        guard let key = reference.key else { return nil }
        return try core.object(T.self, key: key)
    }

    /// The live results a `ThreadSafeReference` refers to, in this
    /// instance. Consumes the reference like the object form.
    public func resolve<Element: Object>(_ reference: ThreadSafeReference<Results<Element>>) throws(DatabaseError) -> Results<Element> {
        Results(source: try resolver(reference), plan: reference.plan)
    }

    /// Checks that `reference` can be resolved here, consumes it and
    /// brings this instance to its version. A reference for another file
    /// or type is refused without being consumed.
    private func resolver<Confined>(_ reference: ThreadSafeReference<Confined>) throws(DatabaseError) -> DatabaseCore {
        let core: DatabaseCore
        switch instance {
        case let .live(live): core = live
        case .frozen: throw DatabaseError.frozen(type: "Database", operation: "resolve a ThreadSafeReference (resolve it in a live instance)")
        }
        core.checkAccess()
        let pin = reference.pin
        guard pin.path == core.store.path else {
            throw DatabaseError.referenceFromAnotherFile(type: reference.info.name, referencePath: pin.path, databasePath: core.store.path)
        }
        _ = try core.info(reference.info.type)
        guard pin.resolve() else {
            throw DatabaseError.referenceAlreadyResolved(type: reference.info.name, madeAt: pin.madeAt)
        }
        defer { pin.release() }
        try core.catchUp(to: pin.version)
        return core
    }
}

import FirnCore

extension ObjectSource {
    /// A managed object of `type` for `key`, read from this source; nil
    /// when no record has that key (never stored, or deleted).
    func lookup<T: Object>(_ type: T.Type, key: [UInt8]) throws(DatabaseError) -> T? {
        checkAccess()
        let info = try info(type)
        guard try record(info, key: key) != nil else { return nil }
        let object = T()
        object.managed = ManagedObject(source: self, info: info, key: key)
        return object
    }
}
